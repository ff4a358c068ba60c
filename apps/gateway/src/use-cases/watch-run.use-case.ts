import { Injectable } from '@nestjs/common';
import { RunEventBus, RunStore } from '@toolgate/executor';
import { DatabaseChanges, type Principal } from '@toolgate/registry';
import type { SequencedRunEvent } from '@toolgate/sdk';
import { Observable } from 'rxjs';
import { RunVisibility } from './run-visibility.service';

/**
 * A run's events in order: those already recorded, then live ones as they are recorded; completes
 * after RUN_FINISHED. A live event that skips a number (a missed publication) is filled in from the
 * record, so a subscriber sees every seq once, in order. Events another replica records (a run
 * executing there) arrive as notices from the shared database and are read from the record.
 */
@Injectable()
export class WatchRunUseCase {
  constructor(
    private readonly visibility: RunVisibility,
    private readonly store: RunStore,
    private readonly bus: RunEventBus,
    private readonly replicas: DatabaseChanges,
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
      const elsewhere = this.replicas.runEvents$.subscribe((notice) => {
        if (notice.runId === runId) enqueue(() => (notice.seq > last ? catchUp() : undefined));
      });
      // Notices sent while the listening connection was down are lost: read what was recorded meanwhile.
      const reconnected = this.replicas.reconnected$.subscribe(() => enqueue(catchUp));
      enqueue(catchUp);
      return () => {
        live.unsubscribe();
        elsewhere.unsubscribe();
        reconnected.unsubscribe();
      };
    });
  }
}
