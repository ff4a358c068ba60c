import type { ErrorCode } from '@toolgate/sdk';

/**
 * The shapes of DESIGN.md. Final step statuses are DESIGN's; `WAITING` (dependencies not done) and
 * `RUNNING` appear only while a run is in progress.
 */
export type StepStatus = 'WAITING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'FALLBACK' | 'SKIPPED' | 'PENDING_APPROVAL' | 'CANCELLED';

/** RUNNING until every step is final; PENDING_APPROVAL while a step waits for a decision. */
export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'PENDING_APPROVAL' | 'CANCELLED';

export interface StepError {
  code: ErrorCode;
  message: string;
  /** JSON pointer of the offending field, for argument and output errors. */
  path?: string;
}

export interface RunStep {
  id: string;
  /** `namespace/name@version` actually run (the fallback's id when status is FALLBACK). */
  tool: string;
  status: StepStatus;
  attempts: number;
  output?: unknown;
  error?: StepError;
  /** Why a step was skipped, cancelled, fell back or waits for approval. */
  reason?: string;
  /** With FALLBACK: the tool that failed and was replaced. */
  fallbackOf?: string;
  dependsOn: string[];
  startedAt: string | null;
  durationMs: number;
}

export interface RunOwner {
  tenant: string;
  subject: string;
}

export interface Run {
  id: string;
  status: RunStatus;
  traceId: string;
  planId: string;
  owner: RunOwner;
  /** The task text the plan came from, when known (usage examples are learned from it). */
  task?: string;
  steps: RunStep[];
  /** Re-plans done after failures (bounded). */
  replans: number;
  /** Why the run ended (or paused) as it did, when that is not plain success. */
  reason?: string;
  startedAt: string;
  finishedAt: string | null;
}
