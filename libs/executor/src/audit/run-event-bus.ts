import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { filter, type Observable, Subject } from 'rxjs';
import type { RunEvent } from './run-event.types';

/** An event with its place in its run's audit record (1, 2, 3, ...), so a late subscriber can join the replay without gaps or duplicates. */
export interface SequencedRunEvent {
  seq: number;
  event: RunEvent;
}

export const runIdOf = (event: RunEvent): string => ('run' in event ? event.run.id : event.runId);

/**
 * In-process stream of run events, fed by the recorder only after an event is persisted: whatever a
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
