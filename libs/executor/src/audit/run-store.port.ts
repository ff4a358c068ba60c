import type { Run, RunEvent, RunListFilter, SequencedRunEvent } from '@toolgate/sdk';

/**
 * Port: the one store every run read and write goes through (the runner writes, the transports read).
 * The runtime records every event before it moves on; a store that fails to record stops the run (an
 * unrecorded call must not happen). Driver: TypeORM on the catalog database.
 */
export abstract class RunStore {
  abstract record(event: RunEvent): Promise<void>;
  abstract load(runId: string): Promise<Run | null>;
  /** Runs of one tenant (of one subject with `subject`), newest first. */
  abstract list(filter: RunListFilter): Promise<Run[]>;
  /** The run's events in order, numbered; with `afterSeq`, only those after it (a replay resuming). */
  abstract events(runId: string, afterSeq?: number): Promise<SequencedRunEvent[]>;
}
