import { type Span, type SpanContext, trace } from '@opentelemetry/api';
import type { Plan, PlanningCandidate, ReplanFeedback, TaskInput } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import { canonicalJson, ErrorCode, type Run, type RunEvent, type RunStep, type StepStatus, ToolgateError } from '@toolgate/sdk';
import type { ResumePoint, RunStore } from '../audit/run-store.port';
import { StoredOutputBudget } from '../audit/stored-output.budget';
import type { ExecutorModuleOptions } from '../executor.config';
import { stepErrorOf, toToolgateError } from '../runtime/tool.errors';
import type { PlanLimits, ValidatedPlan, ValidatedStep } from '../validation/plan.validator';

export const tracer = trace.getTracer('toolgate.executor');

export interface ExecuteOptions {
  /** Aborting it cancels the run: running calls see their signal abort, the rest end CANCELLED. */
  signal?: AbortSignal;
  runId?: string;
  /** The task the plan came from: its text is recorded on the run (RUN_STARTED carries it) and handed to re-plans. */
  task?: TaskInput;
  /** The tools the plan was made from; a re-plan gets exactly these (tool outputs never widen them). */
  candidates?: PlanningCandidate[];
  /** Repairs a plan after a failed step (e.g. `planner.replan`); without it a failure only skips its dependents. */
  replan?: (plan: Plan, feedback: ReplanFeedback) => Promise<Plan>;
  /** Optional cost budget checked with the plan (and every re-plan). */
  cost?: PlanLimits['cost'];
  maxParallel?: number;
  deadlineMs?: number;
  maxSteps?: number;
  maxReplans?: number;
}

export type RunSettings = ExecuteOptions & ExecutorModuleOptions;

export const SUCCESS: ReadonlySet<StepStatus> = new Set(['SUCCEEDED', 'FALLBACK']);
export const OPEN: ReadonlySet<StepStatus> = new Set(['WAITING', 'PENDING_APPROVAL']);

export interface Slot {
  step: ValidatedStep;
  /** This step's entry in `run.steps` (its id differs from the plan's after a re-plan reused the id). */
  entry: RunStep;
  approved: boolean;
}

/** How one step ended: what `RunState.finish` gives it. */
export interface Outcome {
  status: StepStatus;
  tool: string;
  output?: unknown;
  error?: ToolgateError;
  reason?: string;
  fallbackOf?: string;
}

export type Dependency = { state: 'done' } | { state: 'waiting' } | { state: 'blocked'; id: string; status: StepStatus };

export const now = () => new Date().toISOString();
export const callOf = (step: ValidatedStep) => `${step.tool.ref} ${canonicalJson(step.arguments)}`;
const copyStep = (step: RunStep): RunStep => ({ ...step, dependsOn: [...step.dependsOn] });

/** A run read back from the audit to be resumed: which entry holds each plan step, and which entries were approved. */
export interface RestoredSlots {
  entries: Record<string, string>;
  approved: ReadonlySet<string>;
}

/** The run's deadline counts only its stretches of work: a pause for approval does not use it up. */
export class RunDeadline {
  private readonly controller = new AbortController();
  /** Epoch milliseconds at which the current stretch's signal aborts. */
  at = 0;
  private workMs = 0;
  private startedAt = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly limitMs: number,
    private readonly onReached: () => void,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  resume(): void {
    this.startedAt = performance.now();
    const remaining = Math.max(0, this.limitMs - this.workMs);
    this.at = Date.now() + remaining;
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.controller.abort(new ToolgateError(ErrorCode.TIMEOUT, `the run's deadline of ${this.limitMs} ms was reached`));
      this.onReached();
    }, remaining);
  }

  pause(): void {
    this.clear();
    this.workMs += performance.now() - this.startedAt;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * One run in this process: its record, the steps of the plan in force, what completed, what runs, and
 * why it must stop. Every change of a step's status goes through `finish` (one final status, recorded).
 */
export class RunState {
  readonly cancel = new AbortController();
  readonly deadline: RunDeadline;
  /** Steps of the plan in force, in plan order. */
  slots: Slot[];
  /** Outputs of completed steps by plan step id, over every plan of the run; never re-run. */
  readonly outputs = new Map<string, unknown>();
  /** The call (tool@version and arguments) each completed step made, to recognise it in a re-plan. */
  readonly calls = new Map<string, string>();
  readonly running = new Set<Promise<void>>();
  /** The failure waiting for a re-plan once nothing runs any more. */
  repair: { slot: Slot; error: ToolgateError } | null = null;
  private readonly failures = new Set<string>();
  /** Set when the run must start nothing new (repeated failure, re-plan refused). */
  endReason: string | null = null;
  /** Set when recording failed: the run stops. */
  broken: unknown = null;
  /** The loop driving the run now, if any (one at a time). */
  driving: Promise<Run> | null = null;
  /** The span of the current stretch of work; later stretches link to the first. */
  span: Span | null;
  readonly firstSpan: SpanContext;
  /** Removes the listener on the caller's signal. */
  detach: () => void = () => undefined;
  /** Plan step id -> its entry id in `run.steps`, over every plan of the run (the resume point keeps it). */
  private readonly entries: Record<string, string> = {};
  private readonly stored: StoredOutputBudget;
  private audit: Promise<void> = Promise.resolve();
  private woken!: Promise<void>;
  private wakeUp: () => void = () => undefined;

  constructor(
    readonly run: Run,
    readonly principal: Principal,
    readonly options: RunSettings,
    public validated: ValidatedPlan,
    private readonly recorder: RunStore,
    span: Span,
    restored?: RestoredSlots,
  ) {
    this.span = span;
    this.firstSpan = span.spanContext();
    this.deadline = new RunDeadline(options.deadlineMs, () => this.wake());
    this.stored = new StoredOutputBudget(options.storage, run.steps);
    this.rearm();
    this.slots = restored ? this.restoreSlots(restored) : validated.steps.map((step) => this.slotFor(step));
  }

  /** What a process resuming this run needs: the plan in force, pinned to the versions it resolved to, and where its steps stand. */
  resumePoint(): ResumePoint {
    const { plan, steps } = this.validated;
    return {
      plan: { id: plan.id, decision: plan.decision, steps: steps.map((s) => ({ id: s.id, tool: s.tool.ref, arguments: s.arguments, dependsOn: [...s.dependsOn], reason: s.reason })) },
      entries: { ...this.entries },
      roles: [...this.principal.roles],
      approved: this.slots.filter((s) => s.approved).map((s) => s.entry.id),
    };
  }

  /** Wakes the loop waiting in `nextChange`. */
  wake(): void {
    this.wakeUp();
  }

  /** Resolves when a running step settles or something wakes the run. */
  async nextChange(): Promise<void> {
    await Promise.race([...this.running, this.woken]);
    this.rearm();
  }

  abort(reason: string): void {
    if (!this.cancel.signal.aborted) this.cancel.abort(new ToolgateError(ErrorCode.CANCELLED, reason));
    this.wake();
  }

  /** What every call of the run listens to: cancellation and the deadline. */
  callSignal(): AbortSignal {
    return AbortSignal.any([this.cancel.signal, this.deadline.signal]);
  }

  snapshot(): Run {
    return { ...this.run, owner: { ...this.run.owner }, steps: this.run.steps.map(copyStep) };
  }

  /** Records the event (with `resume`, the run's new resume point). */
  async record(event: RunEvent, resume?: ResumePoint): Promise<void> {
    // One chain per run: events reach the recorder in the order they happened.
    const recorded = this.audit.then(() => this.recorder.record(event, resume));
    this.audit = recorded;
    try {
      await recorded;
    } catch (error) {
      this.broken ??= error;
      this.abort('the audit recorder failed');
      throw error;
    }
  }

  slotFor(step: ValidatedStep): Slot {
    let id = step.id;
    for (let n = this.run.replans; this.run.steps.some((s) => s.id === id); n++) id = `${step.id}#${n}`;
    const entry: RunStep = { id, tool: step.tool.ref, status: 'WAITING', attempts: 0, dependsOn: [...step.dependsOn], startedAt: null, durationMs: 0 };
    this.run.steps.push(entry);
    this.entries[step.id] = id;
    return { step, entry, approved: false };
  }

  /** The slots of a run read back from the audit: each plan step on the entry that held it, completed outputs known again. */
  private restoreSlots({ entries, approved }: RestoredSlots): Slot[] {
    Object.assign(this.entries, entries);
    for (const [stepId, entryId] of Object.entries(entries)) {
      const entry = this.run.steps.find((s) => s.id === entryId);
      if (entry && SUCCESS.has(entry.status)) this.outputs.set(stepId, entry.output);
    }
    return this.validated.steps.map((step) => {
      const entry = this.run.steps.find((s) => s.id === entries[step.id]);
      // A step of a re-plan that had no event yet was never stored: it starts again as new.
      if (!entry) return this.slotFor(step);
      if (this.outputs.has(step.id)) this.calls.set(step.id, callOf(step));
      return { step, entry, approved: approved.has(entry.id) };
    });
  }

  /** Why nothing new may start: cancelled, past the deadline, or ended by a failure. */
  stopReason(): { status: StepStatus; reason: string } | null {
    if (this.cancel.signal.aborted) return { status: 'CANCELLED', reason: toToolgateError(this.cancel.signal.reason).message };
    if (this.deadline.signal.aborted) return { status: 'CANCELLED', reason: `${toToolgateError(this.deadline.signal.reason).message} before it ran` };
    if (this.endReason) return { status: 'SKIPPED', reason: this.endReason };
    return null;
  }

  /** How a call that failed with `error` ends when the run was cancelled or ran out of time meanwhile. */
  interrupted(tool: string, error: ToolgateError): Outcome | null {
    if (this.cancel.signal.aborted) return { status: 'CANCELLED', tool, reason: toToolgateError(this.cancel.signal.reason).message };
    if (this.deadline.signal.aborted) return { status: 'FAILED', tool, error: toToolgateError(this.deadline.signal.reason), reason: `interrupted: ${error.message}` };
    return null;
  }

  dependency(id: string): Dependency {
    if (this.outputs.has(id)) return { state: 'done' };
    const slot = this.slots.find((s) => s.step.id === id);
    if (!slot || OPEN.has(slot.entry.status) || slot.entry.status === 'RUNNING') return { state: 'waiting' };
    return { state: 'blocked', id, status: slot.entry.status };
  }

  outputOf(id: string): { done: true; output: unknown } | { done: false } {
    return this.outputs.has(id) ? { done: true, output: this.outputs.get(id) } : { done: false };
  }

  /** Gives a step its one final status and records it; a failure may queue a re-plan. */
  async finish(slot: Slot, outcome: Outcome): Promise<void> {
    const { entry } = slot;
    entry.status = outcome.status;
    entry.tool = outcome.tool;
    if (outcome.reason !== undefined) entry.reason = outcome.reason;
    if (outcome.fallbackOf !== undefined) entry.fallbackOf = outcome.fallbackOf;
    if (outcome.error) entry.error = stepErrorOf(outcome.error);
    if (SUCCESS.has(outcome.status)) {
      // Dependents bind to the whole output; the run's record keeps it only within the storage caps.
      entry.output = this.stored.store(outcome.output);
      this.outputs.set(slot.step.id, outcome.output);
      this.calls.set(slot.step.id, callOf(slot.step));
    }
    await this.record({ type: 'STEP_FINISHED', at: now(), runId: this.run.id, step: copyStep(entry) });
    if (outcome.status === 'FAILED' && outcome.error) this.queueRepair(slot, outcome.error);
    this.wake();
  }

  private queueRepair(slot: Slot, error: ToolgateError): void {
    if (!this.options.replan || this.stopReason()) return;
    const signature = `${slot.entry.tool} ${error.code} ${error.message}`;
    if (this.failures.has(signature)) {
      this.endReason ??= `step ${slot.step.id} failed again exactly as before (${slot.entry.tool}: ${error.code}: ${error.message}); not re-planning`;
      return;
    }
    this.failures.add(signature);
    if (this.run.replans >= this.options.maxReplans || this.repair) return;
    this.repair = { slot, error };
  }

  private rearm(): void {
    this.woken = new Promise<void>((resolve) => {
      this.wakeUp = resolve;
    });
  }
}
