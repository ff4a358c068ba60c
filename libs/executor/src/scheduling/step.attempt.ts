import { randomUUID } from 'node:crypto';
import { type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ErrorCode, type RunStep, ToolgateError, type ToolSpan } from '@toolgate/sdk';
import { fallbackCovers, toToolgateError } from '../runtime/tool.errors';
import { type AttemptReport, type Invocation, ToolInvoker, type ToolProgress } from '../runtime/tool-invoker.port';
import { callOutcome, toolAttempts, toolCallSeconds, toolCalls, toolRetries } from '../telemetry/executor.instruments';
import { resolveArguments } from '../validation/argument.guards';
import { PlanValidator, type ResolvedTool } from '../validation/plan.validator';
import { now, type Outcome, type RunState, type Slot, tracer } from './run.state';

/**
 * One call of one tool version. `invalidOutput`: the tool answered, but its answer breaks its
 * outputSchema; a fallback stands in for a tool that could not serve, never for a wrong answer.
 */
type CallResult = { ok: true; output: unknown } | { ok: false; error: ToolgateError; invalidOutput: boolean };

/**
 * Runs one step: its tool, then (for failures a fallback covers) its manifest's fallback through the
 * same checks, within the step's span, and gives the step its final status.
 */
export class StepAttempt {
  constructor(
    private readonly validator: PlanValidator,
    private readonly invoker: ToolInvoker,
  ) {}

  async run(state: RunState, slot: Slot): Promise<void> {
    const { entry, step } = slot;
    entry.startedAt = now();
    const started = performance.now();
    await state.record({ type: 'STEP_STARTED', at: now(), runId: state.run.id, stepId: entry.id, tool: step.tool.ref });
    const parent: Context = state.span ? trace.setSpan(context.active(), state.span) : context.active();
    const span = tracer.startSpan('toolgate.step', { attributes: { 'toolgate.run.id': state.run.id, 'toolgate.step.id': entry.id, 'toolgate.tool': step.tool.ref } }, parent);
    const outcome = await this.withFallback(state, slot, span);
    entry.durationMs = Math.round(performance.now() - started);
    span.setAttributes({ 'toolgate.step.status': outcome.status, 'toolgate.step.attempts': entry.attempts });
    if (outcome.status === 'FAILED') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message });
    span.end();
    await state.finish(slot, outcome);
  }

  private async withFallback(state: RunState, slot: Slot, span: Span): Promise<Outcome> {
    const primary = slot.step.tool;
    const first = await this.call(state, slot, primary, span);
    if (first.ok) return { status: 'SUCCEEDED', tool: primary.ref, output: first.output };
    const { error } = first;
    const stopped = state.interrupted(primary.ref, error);
    if (stopped) return stopped;
    const fallbackRef = primary.manifest.fallback;
    if (!fallbackRef || first.invalidOutput || !fallbackCovers(error)) return { status: 'FAILED', tool: primary.ref, error };
    const failure = `${primary.ref} failed (${error.code}: ${error.message})`;
    let fallback: ResolvedTool;
    try {
      fallback = this.validator.resolveTool(fallbackRef, state.principal);
    } catch (thrown) {
      const refused = toToolgateError(thrown);
      return { status: 'FAILED', tool: primary.ref, error: refused, reason: `${failure}; its fallback ${fallbackRef} may not run: ${refused.message}` };
    }
    if (fallback.requiresApproval) {
      return { status: 'FAILED', tool: primary.ref, error, reason: `its fallback ${fallback.ref} needs approval and is never run unasked` };
    }
    span.addEvent('toolgate.fallback', { 'toolgate.tool': fallback.ref, 'toolgate.error.code': error.code });
    const second = await this.call(state, slot, fallback, span);
    if (second.ok) return { status: 'FALLBACK', tool: fallback.ref, output: second.output, fallbackOf: primary.ref, reason: `${failure}; ${fallback.ref} stood in` };
    return (
      state.interrupted(fallback.ref, second.error) ?? {
        status: 'FAILED',
        tool: fallback.ref,
        error: second.error,
        fallbackOf: primary.ref,
        reason: `${failure} and its fallback failed too`,
      }
    );
  }

  /** One call of one tool version: grants re-checked, bindings resolved, arguments and output checked against the pinned schemas. */
  private async call(state: RunState, slot: Slot, tool: ResolvedTool, stepSpan: Span): Promise<CallResult> {
    const callId = randomUUID();
    // The OpenTelemetry GenAI form of one tool call, a child of the step (a fallback is a second one).
    const span = tracer.startSpan(
      `execute_tool ${tool.toolId}`,
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool.toolId,
          'gen_ai.tool.call.id': callId,
          'gen_ai.tool.type': 'function',
          'toolgate.tool.version': tool.version,
          ...(tool.codeHash ? { 'toolgate.tool.code_hash': tool.codeHash } : {}),
          'toolgate.run.id': state.run.id,
          'toolgate.step.id': slot.entry.id,
        },
      },
      trace.setSpan(context.active(), stepSpan),
    );
    const started = performance.now();
    // Active for the call, so what it does (an MCP request, a remote call) is traced under it.
    const result = await context.with(trace.setSpan(context.active(), span), () => this.checkedCall(state, slot, tool, span, callId));
    const error = result.ok ? undefined : result.error;
    const outcome = callOutcome(error);
    const labels = { tool: tool.toolId, version: tool.version };
    toolCalls.inc({ ...labels, tenant: state.run.owner.tenant, outcome, error_type: error?.code ?? '' });
    toolCallSeconds.observe({ ...labels, outcome }, (performance.now() - started) / 1000);
    if (error) {
      span.setAttribute('error.type', error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
    return result;
  }

  private async checkedCall(state: RunState, slot: Slot, tool: ResolvedTool, span: Span, callId: string): Promise<CallResult> {
    let output: unknown;
    try {
      output = await this.invoke(state, slot, tool, span, callId);
    } catch (thrown) {
      return { ok: false, error: toToolgateError(thrown), invalidOutput: false };
    }
    const invalid = this.validator.checkOutput(tool, output);
    if (invalid.length === 0) return { ok: true, output };
    const error = new ToolgateError(ErrorCode.TOOL_FAILED, `OUTPUT of ${tool.ref} does not match its outputSchema: ${invalid[0].path} ${invalid[0].message}`, invalid);
    return { ok: false, error, invalidOutput: true };
  }

  private async invoke(state: RunState, slot: Slot, tool: ResolvedTool, span: Span, callId: string): Promise<unknown> {
    const { entry } = slot;
    this.validator.recheck(tool, state.principal);
    const resolved = resolveArguments(slot.step.arguments, (id) => state.outputOf(id), '/arguments');
    if (!resolved.ok) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the arguments of step ${entry.id} cannot be resolved`, resolved.problems);
    const problems = this.validator.checkArguments(tool, resolved.value);
    if (problems.length > 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the arguments do not match the input schema of ${tool.ref}`, problems);
    const attempts = new AttemptLog(state, entry, tool);
    const progress = new StepProgress(state, entry.id, tool.ref);
    const invocation: Invocation = {
      toolId: tool.toolId,
      version: tool.version,
      arguments: resolved.value,
      principal: { ...state.run.owner },
      runId: state.run.id,
      stepId: entry.id,
      attempt: 1,
      callId,
      idempotencyKey: `${state.run.id}:${entry.id}:${tool.ref}`,
      signal: state.callSignal(),
      deadlineAt: state.deadline.at,
      span: toolSpan(span),
      onAttempt: (report) => attempts.record(report),
      onProgress: (report) => progress.report(report),
    };
    const started = performance.now();
    let output: unknown;
    try {
      output = await this.invoker.invoke(invocation);
    } catch (thrown) {
      const error = toToolgateError(thrown);
      await progress.end();
      await attempts.recordUnreported(started, error);
      throw error;
    }
    await progress.end();
    await attempts.recordUnreported(started);
    return output;
  }
}

/**
 * The STEP_PROGRESS events of one call: at most one per PROGRESS_INTERVAL_MS and MAX_PROGRESS_EVENTS
 * in all (a tool may report thousands; the audit keeps a readable trace), none after the call ended.
 */
class StepProgress {
  private recorded = 0;
  private last = 0;
  private ended = false;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: RunState,
    private readonly stepId: string,
    private readonly tool: string,
  ) {}

  report({ progress, total, message }: ToolProgress): void {
    const at = performance.now();
    if (this.ended || this.recorded >= MAX_PROGRESS_EVENTS || at - this.last < PROGRESS_INTERVAL_MS || !Number.isFinite(progress)) return;
    this.recorded++;
    this.last = at;
    const event = {
      type: 'STEP_PROGRESS' as const,
      at: now(),
      runId: this.state.run.id,
      stepId: this.stepId,
      tool: this.tool,
      progress,
      ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
      ...(typeof message === 'string' && message ? { message: message.slice(0, MAX_PROGRESS_MESSAGE) } : {}),
    };
    this.pending = this.pending.then(() => this.state.record(event)).catch(() => undefined);
  }

  /** Waits for what was reported, so no progress is recorded after the step's own events. */
  end(): Promise<void> {
    this.ended = true;
    return this.pending;
  }
}

const PROGRESS_INTERVAL_MS = 250;
const MAX_PROGRESS_EVENTS = 100;
const MAX_PROGRESS_MESSAGE = 500;

/**
 * The ATTEMPT events of one call. Only the invoker layer that retries reports attempts (one report per
 * try, refusals by its breaker or bulkhead included); a call nothing reported an attempt for (no retrying
 * layer, or refused before it, e.g. by the health gate) was one attempt, recorded here.
 */
class AttemptLog {
  private reported = 0;

  constructor(
    private readonly state: RunState,
    private readonly entry: RunStep,
    private readonly tool: ResolvedTool,
  ) {}

  async record(report: AttemptReport): Promise<void> {
    this.reported++;
    await this.append(report.outcome, report.durationMs, report.error);
  }

  async recordUnreported(started: number, error?: ToolgateError): Promise<void> {
    if (this.reported === 0) await this.append(error ? 'FAILED' : 'SUCCEEDED', Math.round(performance.now() - started), error);
  }

  private async append(outcome: AttemptReport['outcome'], durationMs: number, error?: { code: ErrorCode; message: string }): Promise<void> {
    this.entry.attempts++;
    const labels = { tool: this.tool.toolId, version: this.tool.version };
    toolAttempts.inc({ ...labels, result: outcome === 'SUCCEEDED' ? 'succeeded' : 'failed' });
    if (this.reported > 1) toolRetries.inc(labels);
    await this.state.record({
      type: 'ATTEMPT',
      at: now(),
      runId: this.state.run.id,
      stepId: this.entry.id,
      tool: this.tool.ref,
      attempt: this.entry.attempts,
      outcome,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
      durationMs,
      ...(this.tool.codeHash ? { codeHash: this.tool.codeHash } : {}),
    });
  }
}

/** The part of the step span a tool may touch (it cannot end it or change its status). */
function toolSpan(span: Span): ToolSpan {
  return {
    setAttribute: (key, value) => span.setAttribute(`tool.${key}`, value),
    addEvent: (name, attributes) => span.addEvent(name, attributes),
  };
}
