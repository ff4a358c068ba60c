import type { ErrorCode } from '@toolgate/sdk';

/** The shapes of DESIGN.md; the execution issue adds the runtime that produces them. */
export type StepStatus = 'SUCCEEDED' | 'FAILED' | 'FALLBACK' | 'SKIPPED' | 'PENDING_APPROVAL' | 'CANCELLED';

export interface RunStep {
  id: string;
  tool: string;
  status: StepStatus;
  attempts: number;
  output?: unknown;
  error?: { code: ErrorCode; message: string; path?: string };
  startedAt: string;
  durationMs: number;
}

export interface Run {
  id: string;
  status: string;
  traceId: string;
  steps: RunStep[];
}
