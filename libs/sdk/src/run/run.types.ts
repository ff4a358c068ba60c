import type { ErrorCode } from '../errors/toolgate.errors';

/*
 * The run contract of DESIGN.md, shared by the runtime that writes runs, the store that keeps them and
 * the transports that show them. It lives in the sdk because every lib may import the sdk, so no lib
 * has to mirror it.
 */

/**
 * Final step statuses are DESIGN's; `WAITING` (dependencies not done) and `RUNNING` appear only while a
 * run is in progress. Listed as values so that transports can offer them as an enum without a copy.
 */
export const STEP_STATUSES = ['WAITING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'FALLBACK', 'SKIPPED', 'PENDING_APPROVAL', 'CANCELLED'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** RUNNING until every step is final; PENDING_APPROVAL while a step waits for a decision. */
export const RUN_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'PENDING_APPROVAL', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

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

/**
 * Everything a run does, in order: persisted as the audit record and streamed to subscribers.
 * Every submitted call ends in exactly one STEP_FINISHED.
 */
export type RunEvent =
  | { type: 'RUN_STARTED'; at: string; run: Run }
  | { type: 'STEP_STARTED'; at: string; runId: string; stepId: string; tool: string }
  /** What a running tool reports of its progress (an MCP server's notifications/progress); throttled, see StepProgress. */
  | { type: 'STEP_PROGRESS'; at: string; runId: string; stepId: string; tool: string; progress: number; total?: number; message?: string }
  | { type: 'ATTEMPT'; at: string; runId: string; stepId: string; tool: string; attempt: number; outcome: 'SUCCEEDED' | 'FAILED'; error?: StepError; durationMs: number; codeHash?: string }
  | { type: 'STEP_FINISHED'; at: string; runId: string; step: RunStep }
  | { type: 'APPROVAL_REQUESTED'; at: string; runId: string; stepId: string; tool: string; reason: string }
  | { type: 'APPROVAL_DECIDED'; at: string; runId: string; stepId: string; approved: boolean; by: RunOwner; comment?: string }
  | { type: 'REPLANNED'; at: string; runId: string; planId: string; attempt: number; reason: string }
  | { type: 'RUN_FINISHED'; at: string; run: Run };

export type RunEventType = RunEvent['type'];

/** Every event type, in the order a run goes through them; the record makes the compiler flag a missing or unknown one. */
export const RUN_EVENT_TYPES = Object.keys({
  RUN_STARTED: 0,
  STEP_STARTED: 0,
  STEP_PROGRESS: 0,
  ATTEMPT: 0,
  STEP_FINISHED: 0,
  APPROVAL_REQUESTED: 0,
  APPROVAL_DECIDED: 0,
  REPLANNED: 0,
  RUN_FINISHED: 0,
} satisfies Record<RunEventType, 0>) as readonly RunEventType[];

/** An event with its place in its run's audit record: 1, 2, 3, ... with no gaps, so a late reader can join a replay without gaps or duplicates. */
export interface SequencedRunEvent {
  seq: number;
  event: RunEvent;
}

/** Runs are always listed within one tenant; with `subject`, only that caller's. Newest first. */
export interface RunListFilter {
  tenant: string;
  subject?: string;
  status?: RunStatus;
  /** Default 50, at most 500. */
  limit?: number;
}

/** One attempt of one step, as the audit keeps it. */
export interface StepAttempt {
  /** The seq of the ATTEMPT event that reported it. */
  seq: number;
  stepId: string;
  tool: string;
  attempt: number;
  outcome: 'SUCCEEDED' | 'FAILED';
  error: StepError | null;
  durationMs: number;
  at: string;
  /** The hash of the plugin code the attempt ran (the package version's files as loaded and checked by the worker); null for tools without package code. */
  codeHash: string | null;
}

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

/** One approval a step asked for, and its decision once made. */
export interface StepApproval {
  stepId: string;
  tool: string;
  reason: string;
  status: ApprovalStatus;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: RunOwner | null;
  comment: string | null;
}

/** The run an event belongs to. */
export const runIdOf = (event: RunEvent): string => ('run' in event ? event.run.id : event.runId);
