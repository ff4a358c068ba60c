import type { RunOwner } from '../run/run.types';

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
}

/**
 * Port: runs a tool version's code. Drivers decide where (in-process, or isolated so that a runaway
 * can be stopped). Throws ToolgateError (TOOL_FAILED, TIMEOUT, ...) with the cause.
 */
export abstract class ToolInvoker {
  abstract invoke(invocation: Invocation): Promise<unknown>;
}
