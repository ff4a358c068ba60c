import type { ErrorCode } from '@toolgate/sdk';

/*
 * The audit record's shapes. They mirror `@toolgate/executor`'s Run and RunEvent field for field: the
 * registry owns persistence but may not import the executor (dependency direction), and the executor's
 * recorder hands its events over without conversion, so the compiler flags any drift between the two.
 */

export type AuditStepStatus = 'WAITING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'FALLBACK' | 'SKIPPED' | 'PENDING_APPROVAL' | 'CANCELLED';
export type AuditRunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'PENDING_APPROVAL' | 'CANCELLED';

export interface AuditStepError {
  code: ErrorCode;
  message: string;
  path?: string;
}

export interface AuditOwner {
  tenant: string;
  subject: string;
}

export interface AuditedStep {
  id: string;
  tool: string;
  status: AuditStepStatus;
  attempts: number;
  output?: unknown;
  error?: AuditStepError;
  reason?: string;
  fallbackOf?: string;
  dependsOn: string[];
  startedAt: string | null;
  durationMs: number;
}

export interface AuditedRun {
  id: string;
  status: AuditRunStatus;
  traceId: string;
  planId: string;
  owner: AuditOwner;
  task?: string;
  steps: AuditedStep[];
  replans: number;
  reason?: string;
  startedAt: string;
  finishedAt: string | null;
}

export type AuditEvent =
  | { type: 'RUN_STARTED'; at: string; run: AuditedRun }
  | { type: 'STEP_STARTED'; at: string; runId: string; stepId: string; tool: string }
  | { type: 'ATTEMPT'; at: string; runId: string; stepId: string; tool: string; attempt: number; outcome: 'SUCCEEDED' | 'FAILED'; error?: AuditStepError; durationMs: number }
  | { type: 'STEP_FINISHED'; at: string; runId: string; step: AuditedStep }
  | { type: 'APPROVAL_REQUESTED'; at: string; runId: string; stepId: string; tool: string; reason: string }
  | { type: 'APPROVAL_DECIDED'; at: string; runId: string; stepId: string; approved: boolean; by: AuditOwner; comment?: string }
  | { type: 'REPLANNED'; at: string; runId: string; planId: string; attempt: number; reason: string }
  | { type: 'RUN_FINISHED'; at: string; run: AuditedRun };

/** An event with its place in its run: 1, 2, 3, ... with no gaps. */
export interface SequencedAuditEvent {
  seq: number;
  event: AuditEvent;
}

/** Runs are always listed within one tenant; with `subject`, only that caller's. Newest first. */
export interface RunListFilter {
  tenant: string;
  subject?: string;
  status?: AuditRunStatus;
  /** Default 50, at most 500. */
  limit?: number;
}

export interface AuditedAttempt {
  seq: number;
  stepId: string;
  tool: string;
  attempt: number;
  outcome: 'SUCCEEDED' | 'FAILED';
  error: AuditStepError | null;
  durationMs: number;
  at: string;
}

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

export interface AuditedApproval {
  stepId: string;
  tool: string;
  reason: string;
  status: ApprovalStatus;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: AuditOwner | null;
  comment: string | null;
}
