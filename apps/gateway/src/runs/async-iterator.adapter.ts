import type { Observable } from 'rxjs';

/**
 * An Observable as the AsyncIterator GraphQL subscriptions consume. Values wait in a queue until
 * pulled; `return()` (the client went away) unsubscribes.
 */
export function asyncIteratorOf<T>(source: Observable<T>): AsyncIterableIterator<T> {
  const queued: T[] = [];
  const pulls: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }[] = [];
  let ended = false;
  let failure: { error: unknown } | null = null;
  const end = () => {
    ended = true;
    for (const pull of pulls.splice(0)) failure ? pull.reject(failure.error) : pull.resolve({ value: undefined, done: true });
  };
  const subscription = source.subscribe({
    next: (value) => {
      const pull = pulls.shift();
      if (pull) pull.resolve({ value, done: false });
      else queued.push(value);
    },
    error: (error: unknown) => {
      failure = { error };
      end();
    },
    complete: end,
  });
  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      if (queued.length > 0) return Promise.resolve({ value: queued.shift() as T, done: false });
      if (failure) {
        const { error } = failure;
        failure = null;
        return Promise.reject(error);
      }
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => pulls.push({ resolve, reject }));
    },
    return: () => {
      subscription.unsubscribe();
      queued.length = 0;
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
