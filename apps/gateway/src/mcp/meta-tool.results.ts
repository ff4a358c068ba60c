import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Principal } from '@toolgate/registry';
import { ErrorCode, type Run, type RunStep, ToolgateError } from '@toolgate/sdk';
import type { ApprovalShape, RunStepShape, ToolErrorShape } from './meta-tools.schemas';

/*
 * How Toolgate outcomes become MCP tool results: `structuredContent` (matching the tool's
 * outputSchema) plus the same JSON as a text block for clients that read only text; a refusal or a
 * failed run is a result with `isError: true` carrying the Toolgate code, never a protocol error.
 */

const json = (value: unknown) => ({ type: 'text' as const, text: JSON.stringify(value) });

export function structuredResult(structured: Record<string, unknown>, options: { isError?: boolean; summary?: string } = {}): CallToolResult {
  return {
    content: options.summary ? [{ type: 'text', text: options.summary }, json(structured)] : [json(structured)],
    structuredContent: structured,
    ...(options.isError ? { isError: true } : {}),
  };
}

const SUMMARY_CHARS = 200;

/** The description's first sentence, at most SUMMARY_CHARS: hits stay compact; describe_tool has the rest. */
export function summaryOf(description: string): string {
  const sentence = description
    .trim()
    .split(/(?<=[.!?])\s/, 1)[0]
    .replace(/\s+/g, ' ');
  return sentence.length <= SUMMARY_CHARS ? sentence : `${sentence.slice(0, SUMMARY_CHARS - 1).trimEnd()}…`;
}

/** A ToolgateError as the caller may see it: code, message and field paths; anything else is INTERNAL with no detail. */
export function errorShape(error: unknown): ToolErrorShape {
  if (error instanceof ToolgateError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details.length > 0 ? { details: error.details.map(({ path, message }) => ({ path, message })) } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  return { code: ErrorCode.INTERNAL, message: 'internal error' };
}

/** The plan validator names fields of the one-step plan call_tool builds; the caller wrote call_tool's `id` and `arguments`. */
export function asCallToolError(error: unknown): unknown {
  if (!(error instanceof ToolgateError) || error.details.length === 0) return error;
  const path = (p: string) => p.replace(/^\/steps\/0\/arguments(?=\/|$)/, '/arguments').replace(/^\/steps\/0\/tool$/, '/id');
  return new ToolgateError(
    error.code,
    error.message,
    error.details.map((d) => ({ path: path(d.path), message: d.message })),
    { cause: error },
  );
}

export function errorResult(error: unknown): CallToolResult {
  const shape = errorShape(error);
  const where = shape.details?.length ? ` (${shape.details.map((d) => `${d.path || '/'}: ${d.message}`).join('; ')})` : '';
  return structuredResult({ error: shape }, { isError: true, summary: `${shape.code}: ${shape.message}${where}` });
}

const stepError = (step: RunStep): ToolErrorShape | undefined => step.error && { code: step.error.code, message: step.error.message, ...(step.error.path ? { path: step.error.path } : {}) };

export function stepShape(step: RunStep): RunStepShape {
  const error = stepError(step);
  return {
    id: step.id,
    tool: step.tool,
    status: step.status,
    attempts: step.attempts,
    ...(step.output !== undefined ? { output: step.output } : {}),
    ...(error ? { error } : {}),
    ...(step.reason ? { reason: step.reason } : {}),
    durationMs: step.durationMs,
  };
}

/** Who may approve a step and how (PlanRunner.decide): the run's owner cannot approve its own call. */
function approvalOf(run: Run, principal: Principal): ApprovalShape | undefined {
  const step = run.steps.find((s) => s.status === 'PENDING_APPROVAL');
  if (!step) return undefined;
  return {
    stepId: step.id,
    tool: step.tool,
    reason: step.reason ?? 'the tool needs approval',
    approvers: `a subject of tenant ${principal.tenant} other than ${principal.subject}, or an admin, with execute on ${step.tool}`,
    approveWith: `mutation { approveStep(runId: "${run.id}", stepId: "${step.id}") { status } }`,
  };
}

const approvalText = (run: Run, approval: ApprovalShape) =>
  `PENDING_APPROVAL: run ${run.id} waits for approval of step ${approval.stepId} (${approval.tool}: ${approval.reason}). ` +
  `It runs once ${approval.approvers} approves it over GraphQL: ${approval.approveWith} (rejectStep refuses it).`;

const FAILED: ReadonlySet<string> = new Set(['FAILED', 'CANCELLED']);

/** call_tool: the run of one step. A failed step is `isError` with its code; waiting for approval is not an error. */
export function callToolResult(run: Run, principal: Principal): CallToolResult {
  const step = run.steps[0];
  const approval = approvalOf(run, principal);
  const error = step && stepError(step);
  const failure = error ?? (FAILED.has(run.status) ? { code: run.status === 'CANCELLED' ? ErrorCode.CANCELLED : ErrorCode.TOOL_FAILED, message: run.reason ?? `run ${run.status}` } : undefined);
  const structured = {
    runId: run.id,
    status: run.status,
    ...(step ? { tool: step.tool, attempts: step.attempts } : {}),
    ...(step?.output !== undefined ? { output: step.output } : {}),
    ...(failure ? { error: failure } : {}),
    ...(approval ? { approval } : {}),
  };
  if (approval) return structuredResult(structured, { summary: approvalText(run, approval) });
  if (failure) return structuredResult(structured, { isError: true, summary: `${failure.code}: ${failure.message}${failure.path ? ` at ${failure.path}` : ''}` });
  return structuredResult(structured);
}

/** run_task: the whole run; FAILED or CANCELLED is `isError`. */
export function runTaskResult(run: Run, principal: Principal): CallToolResult {
  const approval = approvalOf(run, principal);
  const structured = {
    runId: run.id,
    status: run.status,
    ...(run.reason ? { reason: run.reason } : {}),
    steps: run.steps.map(stepShape),
    ...(approval ? { approval } : {}),
  };
  if (approval) return structuredResult(structured, { summary: approvalText(run, approval) });
  if (FAILED.has(run.status)) return structuredResult(structured, { isError: true, summary: `run ${run.id} ${run.status}${run.reason ? `: ${run.reason}` : ''}` });
  return structuredResult(structured);
}
