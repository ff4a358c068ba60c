import { randomBytes, randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { type Context, context, ROOT_CONTEXT, type Span, type SpanContext, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Plan, PlanningCandidate, ReplanFeedback, TaskInput } from '@toolgate/planner';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import { canonicalJson, ErrorCode, ToolgateError, type ToolSpan } from '@toolgate/sdk';
import type { RunEvent } from '../audit/run-event.types';
import { RunRecorder } from '../audit/run-recorder.port';
import { DEFAULT_EXECUTOR_OPTIONS, type ExecutorModuleOptions } from '../executor.config';
import { EXECUTOR_OPTIONS } from '../executor.module-definition';
import type { Run, RunStep, StepStatus } from '../run/run.types';
import { fallbackCovers, stepErrorOf, toToolgateError } from '../runtime/tool-errors';
import { type Invocation, ToolInvoker } from '../runtime/tool-invoker.port';
import { resolveArguments } from '../validation/argument-guards';
import { type PlanLimits, PlanValidator, type ResolvedTool, type ValidatedPlan, type ValidatedStep } from '../validation/plan.validator';

const tracer = trace.getTracer('toolgate.executor');

export interface ExecuteOptions {
  /** Aborting it cancels the run: running calls see their signal abort, the rest end CANCELLED. */
  signal?: AbortSignal;
  runId?: string;
  /** The task the plan came from: its text is recorded on the run, handed to re-plans and to `onSucceeded`. */
  task?: TaskInput;
  /** The tools the plan was made from; a re-plan gets exactly these (tool outputs never widen them). */
  candidates?: PlanningCandidate[];
  /** Repairs a plan after a failed step (e.g. `planner.replan`); without it a failure only skips its dependents. */
  replan?: (plan: Plan, feedback: ReplanFeedback) => Promise<Plan>;
  /** Called after each SUCCEEDED step of a run that has task text (usage examples are learned from it). */
  onSucceeded?: (toolId: string, taskText: string) => void | Promise<void>;
  /** Optional cost budget checked with the plan (and every re-plan). */
  cost?: PlanLimits['cost'];
  maxParallel?: number;
  deadlineMs?: number;
  maxSteps?: number;
  maxReplans?: number;
}

const SUCCESS: ReadonlySet<StepStatus> = new Set(['SUCCEEDED', 'FALLBACK']);
const OPEN: ReadonlySet<StepStatus> = new Set(['WAITING', 'PENDING_APPROVAL']);

interface Slot {
  step: ValidatedStep;
  /** This step's entry in `run.steps` (its id differs from the plan's after a re-plan reused the id). */
  entry: RunStep;
  approved: boolean;
}

interface Outcome {
  status: StepStatus;
  tool: string;
  output?: unknown;
  error?: ToolgateError;
  reason?: string;
  fallbackOf?: string;
}

interface ActiveRun {
  run: Run;
  principal: Principal;
  options: ExecuteOptions & ExecutorModuleOptions;
  validated: ValidatedPlan;
  /** Steps of the plan in force, in plan order. */
  slots: Slot[];
  /** Outputs of completed steps by plan step id, over every plan of the run; never re-run. */
  outputs: Map<string, unknown>;
  /** The call (tool@version and arguments) each completed step made, to recognise it in a re-plan. */
  calls: Map<string, string>;
  running: Set<Promise<void>>;
  cancel: AbortController;
  deadline: AbortController;
  deadlineTimer?: NodeJS.Timeout;
  deadlineAt: number;
  workMs: number;
  segmentStartedAt: number;
  /** The failure waiting for a re-plan once nothing runs any more. */
  repair: { slot: Slot; error: ToolgateError } | null;
  failures: Set<string>;
  /** Set when the run must start nothing new (repeated failure, re-plan refused). */
  endReason: string | null;
  wake: () => void;
  woken: Promise<void>;
  driving: Promise<Run> | null;
  audit: Promise<void>;
  broken: unknown;
  firstSpan: SpanContext;
  span: Span | null;
  detach: () => void;
}

const callOf = (step: ValidatedStep) => `${step.tool.ref} ${canonicalJson(step.arguments)}`;
const copyStep = (step: RunStep): RunStep => ({ ...step, dependsOn: [...step.dependsOn] });
const copyRun = (run: Run): Run => ({ ...run, owner: { ...run.owner }, steps: run.steps.map(copyStep) });
const now = () => new Date().toISOString();
const truncate = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Runs validated plans: independent steps in parallel (at most `maxParallel` per run), dependents after
 * their dependencies, a failed step's dependents SKIPPED, approvals as pauses, cancellation and a
 * deadline through every call's AbortSignal, fallbacks and bounded re-plans. Every event is recorded
 * before the runner moves on; every step of a run ends in exactly one final status.
 *
 * Paused runs (waiting for approvals) live in this process: a shutdown ends them CANCELLED with that
 * reason, recorded; a crash leaves them as recorded, with no step run twice.
 */
@Injectable()
export class PlanRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('PlanRunner');
  private readonly active = new Map<string, ActiveRun>();
  private readonly options: ExecutorModuleOptions;

  constructor(
    private readonly validator: PlanValidator,
    private readonly invoker: ToolInvoker,
    private readonly recorder: RunRecorder,
    private readonly access: AccessPolicyService,
    @Inject(EXECUTOR_OPTIONS) options: Partial<ExecutorModuleOptions>,
  ) {
    this.options = { ...DEFAULT_EXECUTOR_OPTIONS, ...options };
  }

  /**
   * Validates the plan (throws before anything runs when it is invalid), records the run and runs it
   * until it finishes or pauses for approvals (status PENDING_APPROVAL; `decide` resumes it).
   */
  async execute(plan: Plan, principal: Principal, options: ExecuteOptions = {}): Promise<Run> {
    const settings = { ...this.options, ...options };
    const validated = this.validator.validate(plan, principal, { maxSteps: settings.maxSteps, cost: settings.cost });
    const id = options.runId ?? randomUUID();
    if (this.active.has(id)) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `run ${id} is already running`, [{ path: '/runId', message: 'is in use' }]);
    const span = tracer.startSpan('toolgate.execute', { attributes: { 'toolgate.run.id': id, 'toolgate.plan.id': plan.id, 'toolgate.steps': plan.steps.length } });
    const spanContext = span.spanContext();
    const run: Run = {
      id,
      status: 'RUNNING',
      traceId: trace.isSpanContextValid(spanContext) ? spanContext.traceId : randomBytes(16).toString('hex'),
      planId: plan.id,
      owner: { tenant: principal.tenant, subject: principal.subject },
      ...(options.task?.text ? { task: options.task.text } : {}),
      steps: [],
      replans: 0,
      startedAt: now(),
      finishedAt: null,
    };
    const active: ActiveRun = {
      run,
      principal,
      options: settings,
      validated,
      slots: [],
      outputs: new Map(),
      calls: new Map(),
      running: new Set(),
      cancel: new AbortController(),
      deadline: new AbortController(),
      deadlineAt: 0,
      workMs: 0,
      segmentStartedAt: 0,
      repair: null,
      failures: new Set(),
      endReason: null,
      wake: () => undefined,
      woken: Promise.resolve(),
      driving: null,
      audit: Promise.resolve(),
      broken: null,
      firstSpan: spanContext,
      span,
      detach: () => undefined,
    };
    this.rearm(active);
    active.slots = validated.steps.map((step) => this.slotFor(active, step));
    this.active.set(id, active);
    if (options.signal) {
      const onAbort = () => this.abort(active, `the caller aborted the run${options.signal?.reason instanceof Error ? `: ${options.signal.reason.message}` : ''}`);
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
      active.detach = () => options.signal?.removeEventListener('abort', onAbort);
    }
    try {
      await this.record(active, { type: 'RUN_STARTED', at: now(), run: copyRun(run) });
    } catch (error) {
      this.active.delete(id);
      active.detach();
      span.end();
      throw this.auditFailure(error);
    }
    return this.drive(active);
  }

  /**
   * A decision on a step waiting for approval. The approver needs `execute` on that tool at its risk and
   * must be an admin or another subject than the run's owner (no one approves their own destructive
   * call). Approved, the step runs (the owner's grants are re-checked then); rejected, it ends CANCELLED
   * and its dependents SKIPPED. Resolves when the run pauses again or finishes.
   */
  async decide(runId: string, stepId: string, approved: boolean, by: Principal, comment?: string): Promise<Run> {
    const active = this.visibleRun(runId, by);
    const slot = active.slots.find((s) => s.entry.id === stepId && s.entry.status === 'PENDING_APPROVAL' && !s.approved);
    if (!slot) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `step ${stepId} of run ${runId} is not waiting for approval`, [{ path: '/stepId', message: 'is not waiting for approval' }]);
    const { tool } = slot.step;
    if (!this.access.can(by, 'execute', tool.toolId, tool.risk)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `approving ${tool.ref} needs execute on it at risk ${tool.risk}`);
    }
    if (!this.access.isAdmin(by) && by.subject === active.run.owner.subject) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `${by.subject} started run ${runId} and cannot approve its steps: another subject or an admin decides`);
    }
    await this.record(active, { type: 'APPROVAL_DECIDED', at: now(), runId, stepId, approved, by: { tenant: by.tenant, subject: by.subject }, ...(comment ? { comment } : {}) });
    if (approved) {
      slot.approved = true;
      slot.entry.reason = `approved by ${by.subject}${comment ? `: ${comment}` : ''}`;
    } else {
      await this.finish(active, slot, { status: 'CANCELLED', tool: tool.ref, reason: `rejected by ${by.subject}${comment ? `: ${comment}` : ''}` });
    }
    active.wake();
    return this.drive(active);
  }

  /** Cancels a run: running calls see their signal abort, everything not finished ends CANCELLED. */
  async cancel(runId: string, by: Principal): Promise<Run> {
    const active = this.visibleRun(runId, by);
    if (by.subject !== active.run.owner.subject && !this.access.isAdmin(by)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `only ${active.run.owner.subject} or an admin may cancel run ${runId}`);
    }
    this.abort(active, `cancelled by ${by.subject}`);
    return this.drive(active);
  }

  /** The current state of a run this process is running or holding for approvals. */
  get(runId: string): Run | undefined {
    const active = this.active.get(runId);
    return active ? copyRun(active.run) : undefined;
  }

  /** Shutdown: every run still here (running or paused) is cancelled and its audit completed before the database goes. */
  async beforeApplicationShutdown(): Promise<void> {
    const runs = [...this.active.values()];
    for (const active of runs) this.abort(active, 'the runtime shut down (approvals and runs in progress do not survive a restart)');
    await Promise.allSettled(runs.map((active) => this.drive(active)));
  }

  private visibleRun(runId: string, by: Principal): ActiveRun {
    const active = this.active.get(runId);
    // Another tenant's run is answered exactly like one that does not exist.
    if (!active || active.run.owner.tenant !== by.tenant) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId} is in progress or waiting for approval`, [{ path: '/runId', message: 'no such run in progress' }]);
    }
    return active;
  }

  private abort(active: ActiveRun, reason: string): void {
    if (!active.cancel.signal.aborted) active.cancel.abort(new ToolgateError(ErrorCode.CANCELLED, reason));
    active.wake();
  }

  private slotFor(active: ActiveRun, step: ValidatedStep): Slot {
    let id = step.id;
    for (let n = active.run.replans; active.run.steps.some((s) => s.id === id); n++) id = `${step.id}#${n}`;
    const entry: RunStep = { id, tool: step.tool.ref, status: 'WAITING', attempts: 0, dependsOn: [...step.dependsOn], startedAt: null, durationMs: 0 };
    active.run.steps.push(entry);
    return { step, entry, approved: false };
  }

  private rearm(active: ActiveRun): void {
    active.woken = new Promise<void>((resolve) => {
      active.wake = resolve;
    });
  }

  private drive(active: ActiveRun): Promise<Run> {
    active.driving ??= this.loop(active).finally(() => {
      active.driving = null;
    });
    return active.driving;
  }

  private async loop(active: ActiveRun): Promise<Run> {
    this.startSegment(active);
    try {
      for (;;) {
        await this.settle(active);
        if (active.broken) break;
        if (active.running.size === 0) {
          if (!active.repair) break;
          await this.repair(active);
          continue;
        }
        const woken = active.woken;
        await Promise.race([...active.running, woken]);
        if (woken === active.woken) this.rearm(active);
      }
      if (active.broken) {
        await Promise.allSettled([...active.running]);
        throw this.auditFailure(active.broken);
      }
      return await this.conclude(active);
    } catch (error) {
      // An unrecorded call must not happen: with the audit gone the run stops here.
      this.abort(active, 'the audit recorder failed');
      await Promise.allSettled([...active.running]);
      this.active.delete(active.run.id);
      active.detach();
      throw ToolgateError.is(error, ErrorCode.UNAVAILABLE) ? error : this.auditFailure(error);
    } finally {
      this.endSegment(active);
    }
  }

  /** Ends what cannot run any more, asks for approvals, and starts ready steps up to the parallel bound. */
  private async settle(active: ActiveRun): Promise<void> {
    for (let changed = true; changed && !active.broken; ) {
      changed = false;
      for (const slot of active.slots) {
        const { entry } = slot;
        if (!OPEN.has(entry.status)) continue;
        const stop = this.stopReason(active);
        if (stop) {
          await this.finish(active, slot, { status: stop.status, tool: entry.tool, reason: stop.reason });
          changed = true;
          continue;
        }
        if (active.repair) continue;
        const blocked = slot.step.dependsOn.map((dep) => this.dependency(active, dep)).find((d) => d.state === 'blocked');
        if (blocked?.state === 'blocked') {
          await this.finish(active, slot, { status: 'SKIPPED', tool: entry.tool, reason: `dependency ${blocked.id} ended ${blocked.status}` });
          changed = true;
          continue;
        }
        if (!slot.step.dependsOn.every((dep) => this.dependency(active, dep).state === 'done')) continue;
        if (slot.step.tool.requiresApproval && !slot.approved) {
          if (entry.status !== 'PENDING_APPROVAL') await this.requestApproval(active, slot);
          continue;
        }
        if (active.running.size >= active.options.maxParallel) continue;
        this.start(active, slot);
      }
    }
    if (active.run.status === 'RUNNING' || active.run.status === 'PENDING_APPROVAL') {
      active.run.status = active.slots.some((s) => s.entry.status === 'PENDING_APPROVAL' && !s.approved) ? 'PENDING_APPROVAL' : 'RUNNING';
    }
  }

  private stopReason(active: ActiveRun): { status: StepStatus; reason: string } | null {
    if (active.cancel.signal.aborted) return { status: 'CANCELLED', reason: toToolgateError(active.cancel.signal.reason).message };
    if (active.deadline.signal.aborted) return { status: 'CANCELLED', reason: `${toToolgateError(active.deadline.signal.reason).message} before it ran` };
    if (active.endReason) return { status: 'SKIPPED', reason: active.endReason };
    return null;
  }

  private dependency(active: ActiveRun, id: string): { state: 'done' } | { state: 'waiting' } | { state: 'blocked'; id: string; status: StepStatus } {
    if (active.outputs.has(id)) return { state: 'done' };
    const slot = active.slots.find((s) => s.step.id === id);
    if (!slot || OPEN.has(slot.entry.status) || slot.entry.status === 'RUNNING') return { state: 'waiting' };
    return { state: 'blocked', id, status: slot.entry.status };
  }

  private async requestApproval(active: ActiveRun, slot: Slot): Promise<void> {
    const { tool } = slot.step;
    const args = resolveArguments(slot.step.arguments, (id) => this.outputOf(active, id), '/arguments');
    const why = tool.manifest.permissions.requiresApproval ? 'requires approval' : `has risk ${tool.risk}`;
    const reason = truncate(`${tool.ref} ${why}; it would run with ${args.ok ? JSON.stringify(args.value) : 'arguments that do not resolve'}`);
    slot.entry.status = 'PENDING_APPROVAL';
    slot.entry.reason = reason;
    await this.record(active, { type: 'APPROVAL_REQUESTED', at: now(), runId: active.run.id, stepId: slot.entry.id, tool: tool.ref, reason });
  }

  private start(active: ActiveRun, slot: Slot): void {
    slot.entry.status = 'RUNNING';
    const running: Promise<void> = this.runStep(active, slot)
      .catch((error: unknown) => {
        active.broken ??= error;
      })
      .finally(() => active.running.delete(running));
    active.running.add(running);
  }

  private async runStep(active: ActiveRun, slot: Slot): Promise<void> {
    const { entry, step } = slot;
    entry.startedAt = now();
    const started = performance.now();
    await this.record(active, { type: 'STEP_STARTED', at: now(), runId: active.run.id, stepId: entry.id, tool: step.tool.ref });
    const parent: Context = active.span ? trace.setSpan(context.active(), active.span) : context.active();
    const span = tracer.startSpan('toolgate.step', { attributes: { 'toolgate.run.id': active.run.id, 'toolgate.step.id': entry.id, 'toolgate.tool': step.tool.ref } }, parent);
    const outcome = await this.attempt(active, slot, span);
    entry.durationMs = Math.round(performance.now() - started);
    span.setAttributes({ 'toolgate.step.status': outcome.status, 'toolgate.step.attempts': entry.attempts });
    if (outcome.status === 'FAILED') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message });
    span.end();
    await this.finish(active, slot, outcome);
  }

  /** The step's tool, then (for failures a fallback covers) its manifest's fallback through the same checks. */
  private async attempt(active: ActiveRun, slot: Slot, span: Span): Promise<Outcome> {
    const primary = slot.step.tool;
    let error: ToolgateError;
    try {
      return { status: 'SUCCEEDED', tool: primary.ref, output: await this.call(active, slot, primary, span) };
    } catch (thrown) {
      error = toToolgateError(thrown);
    }
    const stopped = this.interrupted(active, primary.ref, error);
    if (stopped) return stopped;
    const fallbackRef = primary.manifest.fallback;
    if (!fallbackRef || !fallbackCovers(error) || invalidOutputs.has(error)) return { status: 'FAILED', tool: primary.ref, error };
    let fallback: ResolvedTool;
    try {
      fallback = this.validator.resolveTool(fallbackRef, active.principal);
    } catch (thrown) {
      const refused = toToolgateError(thrown);
      return { status: 'FAILED', tool: primary.ref, error: refused, reason: `${primary.ref} failed (${error.code}: ${error.message}); its fallback ${fallbackRef} may not run: ${refused.message}` };
    }
    if (fallback.requiresApproval) {
      return { status: 'FAILED', tool: primary.ref, error, reason: `its fallback ${fallback.ref} needs approval and is never run unasked` };
    }
    span.addEvent('toolgate.fallback', { 'toolgate.tool': fallback.ref, 'toolgate.error.code': error.code });
    try {
      const output = await this.call(active, slot, fallback, span);
      return { status: 'FALLBACK', tool: fallback.ref, output, fallbackOf: primary.ref, reason: `${primary.ref} failed (${error.code}: ${error.message}); ${fallback.ref} stood in` };
    } catch (thrown) {
      const second = toToolgateError(thrown);
      return (
        this.interrupted(active, fallback.ref, second) ?? {
          status: 'FAILED',
          tool: fallback.ref,
          error: second,
          fallbackOf: primary.ref,
          reason: `${primary.ref} failed (${error.code}: ${error.message}) and its fallback failed too`,
        }
      );
    }
  }

  private interrupted(active: ActiveRun, tool: string, error: ToolgateError): Outcome | null {
    if (active.cancel.signal.aborted) return { status: 'CANCELLED', tool, reason: toToolgateError(active.cancel.signal.reason).message };
    if (active.deadline.signal.aborted) return { status: 'FAILED', tool, error: toToolgateError(active.deadline.signal.reason), reason: `interrupted: ${error.message}` };
    return null;
  }

  /** One call of one tool version: grants re-checked, bindings resolved, arguments and output checked against the pinned schemas. */
  private async call(active: ActiveRun, slot: Slot, tool: ResolvedTool, span: Span): Promise<unknown> {
    const { entry } = slot;
    this.validator.recheck(tool, active.principal);
    const resolved = resolveArguments(slot.step.arguments, (id) => this.outputOf(active, id), '/arguments');
    if (!resolved.ok) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the arguments of step ${entry.id} cannot be resolved`, resolved.problems);
    const problems = this.validator.checkArguments(tool, resolved.value);
    if (problems.length > 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the arguments do not match the input schema of ${tool.ref}`, problems);
    let reported = 0;
    const report = async (outcome: 'SUCCEEDED' | 'FAILED', durationMs: number, error?: ToolgateError) => {
      entry.attempts++;
      await this.record(active, {
        type: 'ATTEMPT',
        at: now(),
        runId: active.run.id,
        stepId: entry.id,
        tool: tool.ref,
        attempt: entry.attempts,
        outcome,
        ...(error ? { error: stepErrorOf(error) } : {}),
        durationMs,
      });
    };
    const invocation: Invocation = {
      toolId: tool.toolId,
      version: tool.version,
      arguments: resolved.value,
      principal: { ...active.run.owner },
      runId: active.run.id,
      stepId: entry.id,
      attempt: 1,
      callId: randomUUID(),
      idempotencyKey: `${active.run.id}:${entry.id}:${tool.ref}`,
      signal: AbortSignal.any([active.cancel.signal, active.deadline.signal]),
      deadlineAt: active.deadlineAt,
      span: toolSpan(span),
      onAttempt: async (attempt) => {
        reported++;
        await report(attempt.outcome, attempt.durationMs, attempt.error ? new ToolgateError(attempt.error.code, attempt.error.message) : undefined);
      },
    };
    const started = performance.now();
    let output: unknown;
    try {
      output = await this.invoker.invoke(invocation);
    } catch (thrown) {
      const error = toToolgateError(thrown);
      // An invoker that reports no attempts still leaves one audited attempt per call.
      if (reported === 0) await report('FAILED', Math.round(performance.now() - started), error);
      throw error;
    }
    if (reported === 0) await report('SUCCEEDED', Math.round(performance.now() - started));
    const invalid = this.validator.checkOutput(tool, output);
    if (invalid.length > 0) {
      const error = new ToolgateError(ErrorCode.TOOL_FAILED, `OUTPUT of ${tool.ref} does not match its outputSchema: ${invalid[0].path} ${invalid[0].message}`, invalid);
      invalidOutputs.add(error);
      throw error;
    }
    return output;
  }

  private outputOf(active: ActiveRun, id: string): { done: true; output: unknown } | { done: false } {
    return active.outputs.has(id) ? { done: true, output: active.outputs.get(id) } : { done: false };
  }

  /** Gives a step its one final status and records it; a failure may queue a re-plan. */
  private async finish(active: ActiveRun, slot: Slot, outcome: Outcome): Promise<void> {
    const { entry } = slot;
    entry.status = outcome.status;
    entry.tool = outcome.tool;
    if (outcome.reason !== undefined) entry.reason = outcome.reason;
    if (outcome.fallbackOf !== undefined) entry.fallbackOf = outcome.fallbackOf;
    if (outcome.error) entry.error = stepErrorOf(outcome.error);
    if (SUCCESS.has(outcome.status)) {
      entry.output = outcome.output;
      active.outputs.set(slot.step.id, outcome.output);
      active.calls.set(slot.step.id, callOf(slot.step));
    }
    await this.record(active, { type: 'STEP_FINISHED', at: now(), runId: active.run.id, step: copyStep(entry) });
    if (outcome.status === 'SUCCEEDED' && active.run.task && active.options.onSucceeded) {
      try {
        await active.options.onSucceeded(slot.step.tool.toolId, active.run.task);
      } catch (error) {
        this.logger.warn({ runId: active.run.id, tool: slot.step.tool.ref, error: (error as Error).message }, 'recording a usage example failed');
      }
    }
    if (outcome.status === 'FAILED' && outcome.error) this.queueRepair(active, slot, outcome.error);
    active.wake();
  }

  private queueRepair(active: ActiveRun, slot: Slot, error: ToolgateError): void {
    if (!active.options.replan || this.stopReason(active)) return;
    const signature = `${slot.entry.tool} ${error.code} ${error.message}`;
    if (active.failures.has(signature)) {
      active.endReason ??= `step ${slot.step.id} failed again exactly as before (${slot.entry.tool}: ${error.code}: ${error.message}); not re-planning`;
      return;
    }
    active.failures.add(signature);
    if (active.run.replans >= active.options.maxReplans || active.repair) return;
    active.repair = { slot, error };
  }

  /**
   * Once nothing runs: asks for a repaired plan with the failure and the completed outputs, validates it
   * like the first, keeps completed steps as they are (never re-run) and continues with the rest.
   */
  private async repair(active: ActiveRun): Promise<void> {
    const { slot, error } = active.repair as NonNullable<ActiveRun['repair']>;
    active.repair = null;
    const attempt = active.run.replans + 1;
    for (const open of active.slots.filter((s) => OPEN.has(s.entry.status))) {
      await this.finish(active, open, { status: 'SKIPPED', tool: open.entry.tool, reason: `superseded by re-plan ${attempt} after step ${slot.step.id} failed` });
    }
    const { principal, options } = active;
    const feedback: ReplanFeedback = {
      task: options.task ?? { text: active.run.task ?? '', images: [] },
      candidates: options.candidates ?? [],
      principal: { tenant: principal.tenant, subject: principal.subject, roles: [...principal.roles] },
      failedStep: slot.step.id,
      error: stepErrorOf(error),
      attempt,
      completed: Object.fromEntries(active.outputs),
    };
    let next: Plan;
    let validated: ValidatedPlan;
    try {
      next = await (options.replan as NonNullable<ExecuteOptions['replan']>)(active.validated.plan, feedback);
      if (next.decision !== 'USE_TOOLS') {
        active.endReason = `re-plan ${attempt} after step ${slot.step.id} failed proposes ${next.decision}${next.explanation ? `: ${next.explanation}` : ''}`;
        return;
      }
      validated = this.validator.validate(next, principal, { maxSteps: options.maxSteps, cost: options.cost });
    } catch (thrown) {
      active.endReason = `re-plan ${attempt} after step ${slot.step.id} failed was refused: ${toToolgateError(thrown).describe()}`;
      return;
    }
    const changed = validated.steps.find((s) => active.outputs.has(s.id) && active.calls.get(s.id) !== callOf(s));
    if (changed) {
      active.endReason = `re-plan ${attempt} changes step ${changed.id}, which already ran; a completed step is never run again`;
      return;
    }
    active.run.replans = attempt;
    active.run.planId = next.id;
    active.validated = validated;
    await this.record(active, { type: 'REPLANNED', at: now(), runId: active.run.id, planId: next.id, attempt, reason: `step ${slot.step.id} failed: ${error.code}: ${error.message}` });
    active.slots = validated.steps.filter((s) => !active.outputs.has(s.id)).map((s) => this.slotFor(active, s));
  }

  /** Paused (approvals outstanding) or final: the run's status, and when final its record and release. */
  private async conclude(active: ActiveRun): Promise<Run> {
    const { run } = active;
    if (active.slots.some((s) => s.entry.status === 'PENDING_APPROVAL')) {
      run.status = 'PENDING_APPROVAL';
      run.reason = `waiting for approval of ${active.slots
        .filter((s) => s.entry.status === 'PENDING_APPROVAL')
        .map((s) => s.entry.id)
        .join(', ')}`;
      return copyRun(run);
    }
    const statuses = active.slots.map((s) => s.entry.status);
    const failed = active.slots.find((s) => s.entry.status === 'FAILED');
    if (active.cancel.signal.aborted) {
      run.status = 'CANCELLED';
      run.reason = toToolgateError(active.cancel.signal.reason).message;
    } else if (statuses.every((s) => SUCCESS.has(s)) && !active.endReason) {
      run.status = 'SUCCEEDED';
      delete run.reason;
    } else if (failed || active.endReason || active.deadline.signal.aborted) {
      run.status = 'FAILED';
      run.reason = active.deadline.signal.aborted
        ? toToolgateError(active.deadline.signal.reason).message
        : (active.endReason ??
          `step ${failed?.entry.id} failed: ${failed?.entry.error?.code}: ${failed?.entry.error?.message}${active.options.replan && run.replans >= active.options.maxReplans ? ` (after ${run.replans} re-plans, the most allowed)` : ''}`);
    } else {
      run.status = 'CANCELLED';
      run.reason = 'a step was rejected at approval';
    }
    run.finishedAt = now();
    await this.record(active, { type: 'RUN_FINISHED', at: now(), run: copyRun(run) });
    this.active.delete(run.id);
    active.detach();
    clearTimeout(active.deadlineTimer);
    return copyRun(run);
  }

  /** A stretch of work (from execute or a decision until the run pauses or ends): its own span; the deadline counts only these. */
  private startSegment(active: ActiveRun): void {
    active.segmentStartedAt = performance.now();
    active.span ??= tracer.startSpan('toolgate.execute', { attributes: { 'toolgate.run.id': active.run.id, 'toolgate.run.resumed': true } }, trace.setSpanContext(ROOT_CONTEXT, active.firstSpan));
    const remaining = Math.max(0, active.options.deadlineMs - active.workMs);
    active.deadlineAt = Date.now() + remaining;
    if (!active.deadline.signal.aborted) {
      active.deadlineTimer = setTimeout(() => {
        active.deadline.abort(new ToolgateError(ErrorCode.TIMEOUT, `the run's deadline of ${active.options.deadlineMs} ms was reached`));
        active.wake();
      }, remaining);
    }
  }

  private endSegment(active: ActiveRun): void {
    clearTimeout(active.deadlineTimer);
    active.workMs += performance.now() - active.segmentStartedAt;
    active.span?.setAttribute('toolgate.run.status', active.run.status);
    if (active.run.status === 'FAILED') active.span?.setStatus({ code: SpanStatusCode.ERROR, message: active.run.reason });
    active.span?.end();
    active.span = null;
  }

  private async record(active: ActiveRun, event: RunEvent): Promise<void> {
    // One chain per run: events reach the recorder in the order they happened.
    const recorded = active.audit.then(() => this.recorder.record(event));
    active.audit = recorded;
    try {
      await recorded;
    } catch (error) {
      active.broken ??= error;
      this.abort(active, 'the audit recorder failed');
      throw error;
    }
  }

  private auditFailure(error: unknown): ToolgateError {
    return new ToolgateError(ErrorCode.UNAVAILABLE, `the run audit could not be recorded, so the run was stopped: ${(error as Error)?.message ?? String(error)}`, [], { cause: error });
  }
}

/** Output errors are the tool's answer being wrong, not the tool being down: no fallback stands in for them. */
const invalidOutputs = new WeakSet<ToolgateError>();

/** The part of the step span a tool may touch (it cannot end it or change its status). */
function toolSpan(span: Span): ToolSpan {
  return {
    setAttribute: (key, value) => span.setAttribute(`tool.${key}`, value),
    addEvent: (name, attributes) => span.addEvent(name, attributes),
  };
}
