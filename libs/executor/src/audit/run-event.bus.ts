import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type RunEvent, runIdOf, type SequencedRunEvent } from '@toolgate/sdk';
import { filter, type Observable, Subject } from 'rxjs';

/**
 * In-process stream of run events, fed by the run store only after an event is persisted: whatever a
 * subscriber sees is already in the audit record.
 */
@Injectable()
export class RunEventBus implements OnApplicationShutdown {
  private readonly events = new Subject<SequencedRunEvent & { runId: string }>();

  publish(seq: number, event: RunEvent): void {
    this.events.next({ seq, event, runId: runIdOf(event) });
  }

  /** Events of one run from now on. */
  of(runId: string): Observable<SequencedRunEvent> {
    return this.events.pipe(filter((e) => e.runId === runId));
  }

  /** Events of every run from now on (a process running one run at a time, e.g. the CLI). */
  all(): Observable<SequencedRunEvent & { runId: string }> {
    return this.events.asObservable();
  }

  onApplicationShutdown(): void {
    this.events.complete();
  }
}
