import { Observable, Subject } from 'rxjs';
import { asyncIteratorOf } from './async-iterator.adapter';

describe('asyncIteratorOf', () => {
  it('yields values emitted before and after each pull, in order, then ends with the source', async () => {
    const source = new Subject<number>();
    const iterator = asyncIteratorOf(source);
    const pulledEarly = iterator.next();
    source.next(1);
    source.next(2);
    await expect(pulledEarly).resolves.toEqual({ value: 1, done: false });
    await expect(iterator.next()).resolves.toEqual({ value: 2, done: false });
    source.next(3);
    source.complete();
    const rest: number[] = [];
    for await (const value of iterator) rest.push(value);
    expect(rest).toEqual([3]);
  });

  it('passes a failure of the source to the puller', async () => {
    const iterator = asyncIteratorOf(
      new Observable<number>((subscriber) => {
        subscriber.next(1);
        subscriber.error(new Error('audit unavailable'));
      }),
    );
    await expect(iterator.next()).resolves.toEqual({ value: 1, done: false });
    await expect(iterator.next()).rejects.toThrow('audit unavailable');
    await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('unsubscribes when the consumer stops, and ends a pending pull', async () => {
    let unsubscribed = false;
    const iterator = asyncIteratorOf(
      new Observable<number>(() => () => {
        unsubscribed = true;
      }),
    );
    const pending = iterator.next();
    await iterator.return?.();
    expect(unsubscribed).toBe(true);
    await expect(pending).resolves.toEqual({ value: undefined, done: true });
  });
});
