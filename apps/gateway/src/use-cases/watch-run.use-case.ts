import { Injectable } from '@nestjs/common';
import { RunEventBus, RunStore } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import type { SequencedRunEvent } from '@toolgate/sdk';
import { Observable } from 'rxjs';
import { RunVisibility } from './run-visibility.service';

/**
 * A run's events in order: those already recorded, then live ones as they are recorded; completes
 * after RUN_FINISHED. A live event that skips a number (a missed publication) is filled in from the
 * record, so a subscriber sees every seq once, in order.
 */
@Injectable()
export class WatchRunUseCase {
  constructor(
    private readonly visibility: RunVisibility,
    private readonly store: RunStore,
    private readonly bus: RunEventBus,
  ) {}

  async execute(runId: string, principal: Principal): Promise<Observable<SequencedRunEvent>> {
    const run = await this.visibility.require(runId, principal);
    // Outputs the caller may not read are withheld from every event that carries them.
    const shown = this.visibility.eventView(run, principal);
    return new Observable<SequencedRunEvent>((subscriber) => {
      let last = 0;
      const emit = (event: SequencedRunEvent) => {
        if (event.seq !== last + 1 || subscriber.closed) return;
        last = event.seq;
        subscriber.next(shown(event));
        if (event.event.type === 'RUN_FINISHED') subscriber.complete();
      };
      const catchUp = async () => {
        for (const event of await this.store.events(runId, last)) emit(event);
      };
      let chain = Promise.resolve();
      const enqueue = (work: () => Promise<void> | void) => {
        chain = chain.then(work).catch((error: unknown) => subscriber.error(error));
      };
      // Live first, so nothing recorded while the record is read is missed.
      const live = this.bus.of(runId).subscribe({
        next: (event) => enqueue(() => (event.seq === last + 1 ? emit(event) : event.seq > last ? catchUp() : undefined)),
        complete: () => enqueue(() => subscriber.complete()),
      });
      enqueue(catchUp);
      return () => live.unsubscribe();
    });
  }
}
