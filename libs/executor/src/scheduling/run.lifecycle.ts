import { randomBytes, randomUUID } from 'node:crypto';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Plan } from '@toolgate/planner';
import type { AccessPolicyService, Principal } from '@toolgate/registry';
import { ErrorCode, type Run, type RunStep, ToolgateError } from '@toolgate/sdk';
import type { RunStore } from '../audit/run-store.port';
import type { ExecutorModuleOptions } from '../executor.config';
import { toToolgateError } from '../runtime/tool.errors';
import { recordRunFinished } from '../telemetry/executor.instruments';
import type { PlanValidator } from '../validation/plan.validator';
import type { RunReplanner } from './run.replanner';
import { type ExecuteOptions, now, RunState, SUCCESS, tracer } from './run.state';
import type { StepScheduler } from './step.scheduler';

/** A run is an orphan once its owner has been silent for this many heartbeats. */
export const STALE_HEARTBEATS = 3;

const FINAL_STEP = new Set(['SUCCEEDED', 'FAILED', 'FALLBACK', 'SKIPPED', 'CANCELLED']);

const interruption = () => new ToolgateError(ErrorCode.INTERRUPTED, 'the process running this step stopped (crash or kill) before the step finished; it is not run again');

const auditFailure = (error: unknown) =>
  new ToolgateError(ErrorCode.UNAVAILABLE, `the run audit could not be recorded, so the run was stopped: ${(error as Error)?.message ?? String(error)}`, [], { cause: error });

/**
 * The runs of this process from start to end: recorded start, stretches of work (each its own span;
 * the deadline counts only these), pauses for approval and the decisions that resume them,
 * cancellation, re-plans once nothing runs, and the recorded conclusion.
 */
export class RunLifecycle {
  private readonly runs = new Map<string, RunState>();

  constructor(
    private readonly validator: PlanValidator,
    private readonly recorder: RunStore,
    private readonly access: AccessPolicyService,
    private readonly scheduler: StepScheduler,
    private readonly replanner: RunReplanner,
    private readonly defaults: ExecutorModuleOptions,
  ) {}

  async execute(plan: Plan, principal: Principal, options: ExecuteOptions): Promise<Run> {
    const settings = { ...this.defaults, ...options };
    const validated = this.validator.validate(plan, principal, { maxSteps: settings.maxSteps, cost: settings.cost });
    const id = options.runId ?? randomUUID();
    if (this.runs.has(id)) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `run ${id} is already running`, [{ path: '/runId', message: 'is in use' }]);
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
    const state = new RunState(run, principal, settings, validated, this.recorder, span);
    this.runs.set(id, state);
    if (options.signal) this.follow(state, options.signal);
    try {
      await state.record({ type: 'RUN_STARTED', at: now(), run: state.snapshot() }, state.resumePoint());
    } catch (error) {
      this.release(state);
      span.end();
      throw auditFailure(error);
    }
    return this.drive(state);
  }

  async decide(runId: string, stepId: string, approved: boolean, by: Principal, comment?: string): Promise<Run> {
    await this.adoptOrphan(runId);
    const state = this.visibleRun(runId, by);
    const slot = state.slots.find((s) => s.entry.id === stepId && s.entry.status === 'PENDING_APPROVAL' && !s.approved);
    if (!slot) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `step ${stepId} of run ${runId} is not waiting for approval`, [{ path: '/stepId', message: 'is not waiting for approval' }]);
    const { tool } = slot.step;
    if (!this.access.can(by, 'execute', tool.toolId, tool.risk)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `approving ${tool.ref} needs execute on it at risk ${tool.risk}`);
    }
    if (!this.access.isAdmin(by) && by.subject === state.run.owner.subject) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `${by.subject} started run ${runId} and cannot approve its steps: another subject or an admin decides`);
    }
    const resume = state.resumePoint();
    if (approved) resume.approved.push(stepId);
    await state.record({ type: 'APPROVAL_DECIDED', at: now(), runId, stepId, approved, by: { tenant: by.tenant, subject: by.subject }, ...(comment ? { comment } : {}) }, resume);
    const note = comment ? `: ${comment}` : '';
    if (approved) {
      slot.approved = true;
      slot.entry.reason = `approved by ${by.subject}${note}`;
    } else {
      await state.finish(slot, { status: 'CANCELLED', tool: tool.ref, reason: `rejected by ${by.subject}${note}` });
    }
    state.wake();
    return this.drive(state);
  }

  async cancel(runId: string, by: Principal): Promise<Run> {
    await this.adoptOrphan(runId);
    const state = this.visibleRun(runId, by);
    if (by.subject !== state.run.owner.subject && !this.access.isAdmin(by)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `only ${state.run.owner.subject} or an admin may cancel run ${runId}`);
    }
    state.abort(`cancelled by ${by.subject}`);
    return this.drive(state);
  }

  get(runId: string): Run | undefined {
    return this.runs.get(runId)?.snapshot();
  }

  /**
   * Shutdown: runs in progress are cancelled and their audit completed. Runs paused for approval are
   * held by nobody (see conclude), so they stay approvable on any replica, or after the next start.
   */
  async shutdown(): Promise<void> {
    const states = [...this.runs.values()];
    for (const state of states) state.abort('the runtime shut down while the run was in progress');
    await Promise.allSettled(states.map((state) => this.drive(state)));
  }

  /**
   * Crash recovery: claims runs left RUNNING whose owner has been silent for STALE_HEARTBEATS
   * heartbeats (or that have none), once each, and finishes them (started steps FAILED with
   * INTERRUPTED, the rest SKIPPED, the run FAILED). With `runId` (a decision or cancellation arrived
   * here), that run is claimed also when it waits for approval, and restored to go on here (a step
   * that was running FAILED with INTERRUPTED). Returns what it did.
   */
  async recover(options: { runId?: string } = {}): Promise<{ finished: string[]; restored: string[] }> {
    const staleBefore = Date.now() - STALE_HEARTBEATS * this.defaults.storage.heartbeatMs;
    const done = { finished: [] as string[], restored: [] as string[] };
    for (const claimed of await this.recorder.claimOrphans(staleBefore, options)) {
      const run = await this.recorder.load(claimed.id);
      if (!run || this.runs.has(run.id)) continue;
      if (run.status === 'PENDING_APPROVAL' && (await this.restore(run))) done.restored.push(run.id);
      else {
        await this.finishInterrupted(run, 'interrupted: the process running it stopped (crash or kill) before it finished; recovered at the next start');
        done.finished.push(run.id);
      }
    }
    return done;
  }

  /** A decision or cancellation for a run no process holds: this process takes it over first (the one that got the request resumes it). */
  private async adoptOrphan(runId: string): Promise<void> {
    if (!this.runs.has(runId)) await this.recover({ runId });
  }

  /** A paused run read back from the audit, held here again; false when it cannot resume (it is then finished with the reason). */
  private async restore(run: Run): Promise<boolean> {
    const point = await this.recorder.resumePoint(run.id);
    if (!point) {
      await this.finishInterrupted(run, 'it waited for approval when its process stopped, and was recorded without what resuming needs');
      return false;
    }
    const principal: Principal = { tenant: run.owner.tenant, subject: run.owner.subject, roles: point.roles };
    const settings = { ...this.defaults, ...(run.task ? { task: { text: run.task, images: [] } } : {}) };
    let validated: ReturnType<PlanValidator['validate']>;
    try {
      validated = this.validator.validate(point.plan, principal, { maxSteps: settings.maxSteps });
    } catch (error) {
      await this.finishInterrupted(run, `it waited for approval when its process stopped and cannot resume: ${toToolgateError(error).describe()}`);
      return false;
    }
    const span = tracer.startSpan('toolgate.execute', { attributes: { 'toolgate.run.id': run.id, 'toolgate.plan.id': run.planId, 'toolgate.run.restored': true } });
    const state = new RunState(run, principal, settings, validated, this.recorder, span, { entries: point.entries, approved: new Set(point.approved) });
    this.runs.set(run.id, state);
    try {
      for (const slot of state.slots.filter((s) => s.entry.status === 'RUNNING')) {
        await state.finish(slot, { status: 'FAILED', tool: slot.entry.tool, error: interruption() });
      }
    } catch (error) {
      this.release(state);
      throw auditFailure(error);
    } finally {
      span.end();
      state.span = null;
    }
    return true;
  }

  /** Ends a run no process can go on with, from its record alone: every step not final gets one final status, then the run. */
  private async finishInterrupted(run: Run, reason: string): Promise<void> {
    const at = now();
    const ended = new Map<string, RunStep['status']>(run.steps.filter((s) => FINAL_STEP.has(s.status)).map((s) => [s.id, s.status]));
    for (const step of run.steps) {
      if (FINAL_STEP.has(step.status)) continue;
      const blocked = step.dependsOn.find((dep) => ended.has(dep) && !SUCCESS.has(ended.get(dep) as RunStep['status']));
      const final: RunStep =
        step.status === 'RUNNING'
          ? {
              ...step,
              status: 'FAILED',
              error: { code: ErrorCode.INTERRUPTED, message: interruption().message },
              durationMs: step.startedAt ? Math.max(0, Date.parse(at) - Date.parse(step.startedAt)) : 0,
            }
          : step.status === 'PENDING_APPROVAL'
            ? { ...step, status: 'CANCELLED', reason: `not approved before the run ended: ${reason}` }
            : { ...step, status: 'SKIPPED', reason: blocked ? `dependency ${blocked} ended ${ended.get(blocked)}` : `never started: ${reason}` };
      Object.assign(step, final);
      ended.set(step.id, step.status);
      await this.recorder.record({ type: 'STEP_FINISHED', at, runId: run.id, step: { ...step, dependsOn: [...step.dependsOn] } });
    }
    Object.assign(run, { status: 'FAILED', reason, finishedAt: at });
    await this.recorder.record({ type: 'RUN_FINISHED', at, run });
    recordRunFinished(run.status, run.owner.tenant, run.startedAt, at);
  }

  /** The caller's signal cancels the run. */
  private follow(state: RunState, signal: AbortSignal): void {
    const onAbort = () => state.abort(`the caller aborted the run${signal.reason instanceof Error ? `: ${signal.reason.message}` : ''}`);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    state.detach = () => signal.removeEventListener('abort', onAbort);
  }

  private visibleRun(runId: string, by: Principal): RunState {
    const state = this.runs.get(runId);
    // Another tenant's run is answered exactly like one that does not exist.
    if (!state || state.run.owner.tenant !== by.tenant) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId} is in progress or waiting for approval`, [{ path: '/runId', message: 'no such run in progress' }]);
    }
    return state;
  }

  private release(state: RunState): void {
    this.runs.delete(state.run.id);
    state.detach();
  }

  private drive(state: RunState): Promise<Run> {
    state.driving ??= this.loop(state).finally(() => {
      state.driving = null;
    });
    return state.driving;
  }

  private async loop(state: RunState): Promise<Run> {
    this.startSegment(state);
    try {
      for (;;) {
        await this.scheduler.settle(state);
        if (state.broken) break;
        if (state.running.size === 0) {
          if (!state.repair) break;
          await this.replanner.repair(state);
          continue;
        }
        await state.nextChange();
      }
      if (state.broken) {
        await Promise.allSettled([...state.running]);
        throw auditFailure(state.broken);
      }
      return await this.conclude(state);
    } catch (error) {
      // An unrecorded call must not happen: with the audit gone the run stops here.
      state.abort('the audit recorder failed');
      await Promise.allSettled([...state.running]);
      this.release(state);
      throw ToolgateError.is(error, ErrorCode.UNAVAILABLE) ? error : auditFailure(error);
    } finally {
      this.endSegment(state);
    }
  }

  /** Paused (approvals outstanding) or final: the run's status, and when final its record and release. */
  private async conclude(state: RunState): Promise<Run> {
    const { run } = state;
    const pending = state.slots.filter((s) => s.entry.status === 'PENDING_APPROVAL');
    if (pending.length > 0) {
      run.status = 'PENDING_APPROVAL';
      run.reason = `waiting for approval of ${pending.map((s) => s.entry.id).join(', ')}`;
      // Nobody holds a paused run: the replica that gets the decision takes it from the audit (see adoptOrphan), exactly once.
      this.release(state);
      state.deadline.clear();
      await this.recorder.release([run.id]);
      return state.snapshot();
    }
    const failed = state.slots.find((s) => s.entry.status === 'FAILED');
    if (state.cancel.signal.aborted) {
      run.status = 'CANCELLED';
      run.reason = toToolgateError(state.cancel.signal.reason).message;
    } else if (state.slots.every((s) => SUCCESS.has(s.entry.status)) && !state.endReason) {
      run.status = 'SUCCEEDED';
      delete run.reason;
    } else if (failed || state.endReason || state.deadline.signal.aborted) {
      run.status = 'FAILED';
      run.reason = state.deadline.signal.aborted
        ? toToolgateError(state.deadline.signal.reason).message
        : (state.endReason ??
          `step ${failed?.entry.id} failed: ${failed?.entry.error?.code}: ${failed?.entry.error?.message}${state.options.replan && run.replans >= state.options.maxReplans ? ` (after ${run.replans} re-plans, the most allowed)` : ''}`);
    } else {
      run.status = 'CANCELLED';
      run.reason = 'a step was rejected at approval';
    }
    run.finishedAt = now();
    await state.record({ type: 'RUN_FINISHED', at: now(), run: state.snapshot() });
    recordRunFinished(run.status, run.owner.tenant, run.startedAt, run.finishedAt);
    this.release(state);
    state.deadline.clear();
    return state.snapshot();
  }

  /** A stretch of work (from execute or a decision until the run pauses or ends): its own span; the deadline counts only these. */
  private startSegment(state: RunState): void {
    state.span ??= tracer.startSpan('toolgate.execute', { attributes: { 'toolgate.run.id': state.run.id, 'toolgate.run.resumed': true } }, trace.setSpanContext(ROOT_CONTEXT, state.firstSpan));
    state.deadline.resume();
  }

  private endSegment(state: RunState): void {
    state.deadline.pause();
    state.span?.setAttribute('toolgate.run.status', state.run.status);
    if (state.run.status === 'FAILED') state.span?.setStatus({ code: SpanStatusCode.ERROR, message: state.run.reason });
    state.span?.end();
    state.span = null;
  }
}
