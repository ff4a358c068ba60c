import type { ToolSpan } from '@toolgate/sdk';
import type { RunOwner, StepError } from '../run/run.types';

/** One attempt's outcome, reported by whichever layer retries, so each attempt is audited. */
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
  /** Called after every attempt (a retrying invoker calls it once per try), before the next one starts. */
  onAttempt?: (report: AttemptReport) => void | Promise<void>;
}

/**
 * Port: runs a tool version's code. Drivers decide where (in-process, or isolated so that a runaway
 * can be stopped). Throws ToolgateError (TOOL_FAILED, TIMEOUT, ...) with the cause.
 */
export abstract class ToolInvoker {
  abstract invoke(invocation: Invocation): Promise<unknown>;

  /**
   * Readies what runs the tool (e.g. a worker with the plugin's code loaded) so that a call's timeout
   * covers the tool's own work, not thread start and module loading. Callers await it before timing.
   */
  async prepare(_toolId: string, _version: string, _signal: AbortSignal): Promise<void> {}
}
