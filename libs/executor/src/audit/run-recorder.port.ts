import type { Run } from '../run/run.types';
import type { RunEvent, RunFilter } from './run-event.types';

/**
 * Port: the audit trail of runs. The runtime records every event before it moves on; a recorder that
 * fails stops the run (an unrecorded call must not happen). Driver: TypeORM on the catalog database.
 */
export abstract class RunRecorder {
  abstract record(event: RunEvent): Promise<void>;
  abstract load(runId: string): Promise<Run | null>;
  abstract list(filter: RunFilter): Promise<Run[]>;
  /** Every event of one run, in order. */
  abstract events(runId: string): Promise<RunEvent[]>;
}
