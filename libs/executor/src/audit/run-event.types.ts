import type { Run, RunOwner, RunStep, StepError } from '../run/run.types';

/**
 * Everything a run does, in order: persisted as the audit record and streamed to `runEvents`.
 * Every submitted call ends in exactly one STEP_FINISHED.
 */
export type RunEvent =
  | { type: 'RUN_STARTED'; at: string; run: Run }
  | { type: 'STEP_STARTED'; at: string; runId: string; stepId: string; tool: string }
  | { type: 'ATTEMPT'; at: string; runId: string; stepId: string; tool: string; attempt: number; outcome: 'SUCCEEDED' | 'FAILED'; error?: StepError; durationMs: number }
  | { type: 'STEP_FINISHED'; at: string; runId: string; step: RunStep }
  | { type: 'APPROVAL_REQUESTED'; at: string; runId: string; stepId: string; tool: string; reason: string }
  | { type: 'APPROVAL_DECIDED'; at: string; runId: string; stepId: string; approved: boolean; by: RunOwner; comment?: string }
  | { type: 'REPLANNED'; at: string; runId: string; planId: string; attempt: number; reason: string }
  | { type: 'RUN_FINISHED'; at: string; run: Run };

export interface RunFilter {
  owner?: RunOwner;
  status?: Run['status'];
  limit?: number;
}
