import type { Plan } from '@toolgate/planner';
import type { PendingApprovals } from '@toolgate/registry';
import type { Run, RunEvent, RunListFilter, RunStatus, SequencedRunEvent } from '@toolgate/sdk';

/**
 * What resuming a run in another process needs, stored with the run when its plan changes (start,
 * re-plan): the plan in force with every tool pinned to the version it resolved to, which run step
 * holds each plan step (ids differ after a re-plan reused one), and the owner's role names (their
 * grants are read from the policies in force when the run resumes).
 */
export interface ResumePoint {
  plan: Plan;
  /** Plan step id -> the id of its entry in `run.steps`, over every plan of the run. */
  entries: Record<string, string>;
  roles: string[];
  /** Entries whose approval was given (they may start once the run resumes). */
  approved: string[];
}

/** A run in progress this process took over from a process that stopped holding it. */
export interface ClaimedRun {
  id: string;
  status: RunStatus;
}

/**
 * Port: the one store every run read and write goes through (the runner writes, the transports read).
 * The runtime records every event before it moves on; a store that fails to record stops the run (an
 * unrecorded call must not happen). Driver: TypeORM on the catalog database.
 *
 * Every run in progress has an owner, the process running or holding it (`instance`), which keeps a
 * heartbeat; a run whose owner stopped (crashed, killed, or shut down leaving it paused) is an orphan
 * another process claims, once, and then finishes or resumes.
 */
export abstract class RunStore {
  /** This process's id as an owner of runs. */
  abstract readonly instance: string;
  /** Records the event; with `resume`, the run's new resume point in the same write. RUN_STARTED makes this process the run's owner. */
  abstract record(event: RunEvent, resume?: ResumePoint): Promise<void>;
  abstract load(runId: string): Promise<Run | null>;
  /** Runs of one tenant (of one subject with `subject`), newest first; their steps without outputs (`load` has them). */
  abstract list(filter: RunListFilter): Promise<Run[]>;
  /** The run's events in order, numbered; with `afterSeq`, only those after it (a replay resuming). */
  abstract events(runId: string, afterSeq?: number): Promise<SequencedRunEvent[]>;
  abstract resumePoint(runId: string): Promise<ResumePoint | null>;
  /** This process still holds its runs in progress. */
  abstract heartbeat(): Promise<void>;
  /** Claims orphans (of them, `runId` alone when given) whose owner has been silent since before `staleBefore` (epoch ms), or that have none. */
  abstract claimOrphans(staleBefore: number, options?: { runId?: string; limit?: number }): Promise<ClaimedRun[]>;
  /** Lets runs go without finishing them (paused at a shutdown): the next process claims them at once. */
  abstract release(runIds: string[]): Promise<void>;
  /** Steps waiting for approval across every process, per tenant (how many, and the oldest's request time). */
  abstract pendingApprovals(): Promise<PendingApprovals[]>;
  /** Removes runs that finished before `before` (epoch ms); returns how many. */
  abstract removeFinished(before: number): Promise<number>;
}
