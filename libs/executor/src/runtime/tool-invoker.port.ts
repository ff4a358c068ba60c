import type { RunOwner, StepError, ToolSpan } from '@toolgate/sdk';

/** One attempt's outcome, reported by the layer that retries (ResilientToolInvoker), so each attempt is audited. */
export interface AttemptReport {
  attempt: number;
  outcome: 'SUCCEEDED' | 'FAILED';
  error?: StepError;
  durationMs: number;
}

/** One call of one tool version: what the runtime hands to the code that runs it. */
export interface Invocation {
  toolId: string;
  version: string;
  arguments: Record<string, unknown>;
  principal: RunOwner;
  runId: string;
  stepId: string;
  /** 1-based; retries increase it. */
  attempt: number;
  callId: string;
  /** Stable across retries of one step: a tool that is not idempotent uses it to refuse a duplicate. */
  idempotencyKey: string;
  signal: AbortSignal;
  /** Epoch milliseconds at which `signal` aborts because the run's deadline is reached: what retries must share. */
  deadlineAt?: number;
  /** The step's span (`toolgate.step`), handed to the tool as `ctx.span`. */
  span?: ToolSpan;
  /**
   * Called by the one layer that retries (ResilientToolInvoker) after every try, before the next one
   * starts; no other layer reports. A call nothing reported an attempt for (no retrying layer, or
   * refused above it, e.g. by the health gate) is audited by the runner as one attempt.
   */
  onAttempt?: (report: AttemptReport) => void | Promise<void>;
  /** Progress the tool reports while it runs (MCP `notifications/progress`); recorded as STEP_PROGRESS run events. */
  onProgress?: (progress: ToolProgress) => void;
}

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What `prepare` and `release` are told of the call. */
export type PreparedCall = Pick<Invocation, 'toolId' | 'version' | 'callId' | 'principal'>;

/**
 * Port: runs a tool version's code. Drivers decide where (in-process, or isolated so that a runaway
 * can be stopped). Throws ToolgateError (TOOL_FAILED, TIMEOUT, ...) with the cause.
 */
export abstract class ToolInvoker {
  abstract invoke(invocation: Invocation): Promise<unknown>;

  /**
   * Readies what runs the call (e.g. reserves a worker with the plugin's code loaded, waiting for one
   * when all are busy) so that the call's timeout covers the tool's own work, not start-up or waiting
   * for a worker. Callers await it before timing, bounded by their own signal, and `release` the call
   * afterwards whether or not `invoke` ran.
   */
  async prepare(_call: PreparedCall, _signal: AbortSignal): Promise<void> {}

  /** Frees what `prepare` reserved for a call that did not use it (a no-op once `invoke` ran). */
  release(_call: PreparedCall): void {}
}
