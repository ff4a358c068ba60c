import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Plan } from '@toolgate/planner';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';
import { RunStore } from '../audit/run-store.port';
import { DEFAULT_EXECUTOR_OPTIONS, type ExecutorModuleOptions } from '../executor.config';
import { EXECUTOR_OPTIONS } from '../executor.module-definition';
import { ToolInvoker } from '../runtime/tool-invoker.port';
import { PlanValidator } from '../validation/plan.validator';
import { RunLifecycle } from './run.lifecycle';
import { RunReplanner } from './run.replanner';
import type { ExecuteOptions } from './run.state';
import { StepAttempt } from './step.attempt';
import { StepScheduler } from './step.scheduler';

export type { ExecuteOptions } from './run.state';

/**
 * Runs validated plans: independent steps in parallel (at most `maxParallel` per run), dependents after
 * their dependencies, a failed step's dependents SKIPPED, approvals as pauses, cancellation and a
 * deadline through every call's AbortSignal, fallbacks and bounded re-plans. Every event is recorded
 * before the runner moves on; every step of a run ends in exactly one final status.
 *
 * Runs are durable: a shutdown cancels runs in progress (recorded) and releases runs paused for
 * approval, which the next process restores; after a crash, `recover` (run by `RunMaintenance` at
 * start and on every heartbeat) finishes what a dead process left running and restores what it left
 * paused. No step is run or recorded twice.
 *
 * The parts: `RunLifecycle` (start, pauses, decisions, cancel, deadline, conclusion), `StepScheduler`
 * (which steps start), `StepAttempt` (one step's call and fallback), `RunReplanner`, `RunState`.
 */
@Injectable()
export class PlanRunner implements BeforeApplicationShutdown {
  private readonly lifecycle: RunLifecycle;

  constructor(validator: PlanValidator, invoker: ToolInvoker, recorder: RunStore, access: AccessPolicyService, @Inject(EXECUTOR_OPTIONS) options: Partial<ExecutorModuleOptions>) {
    const scheduler = new StepScheduler(new StepAttempt(validator, invoker));
    this.lifecycle = new RunLifecycle(validator, recorder, access, scheduler, new RunReplanner(validator), { ...DEFAULT_EXECUTOR_OPTIONS, ...options });
  }

  /**
   * Validates the plan (throws before anything runs when it is invalid), records the run and runs it
   * until it finishes or pauses for approvals (status PENDING_APPROVAL; `decide` resumes it).
   */
  execute(plan: Plan, principal: Principal, options: ExecuteOptions = {}): Promise<Run> {
    return this.lifecycle.execute(plan, principal, options);
  }

  /**
   * A decision on a step waiting for approval. The approver needs `execute` on that tool at its risk and
   * must be an admin or another subject than the run's owner (no one approves their own destructive
   * call). Approved, the step runs (the owner's grants are re-checked then); rejected, it ends CANCELLED
   * and its dependents SKIPPED. Resolves when the run pauses again or finishes.
   */
  decide(runId: string, stepId: string, approved: boolean, by: Principal, comment?: string): Promise<Run> {
    return this.lifecycle.decide(runId, stepId, approved, by, comment);
  }

  /** Cancels a run: running calls see their signal abort, everything not finished ends CANCELLED. */
  cancel(runId: string, by: Principal): Promise<Run> {
    return this.lifecycle.cancel(runId, by);
  }

  /** The current state of a run this process is running or holding for approvals. */
  get(runId: string): Run | undefined {
    return this.lifecycle.get(runId);
  }

  /**
   * Claims runs whose process stopped holding them and finishes (RUNNING: started steps FAILED with
   * INTERRUPTED, the rest SKIPPED, the run FAILED) or restores them (PENDING_APPROVAL: approvable here).
   */
  recover(): Promise<{ finished: string[]; restored: string[] }> {
    return this.lifecycle.recover();
  }

  /** Shutdown: runs in progress are cancelled and their audit completed before the database goes; runs paused for approval are released for the next process. */
  beforeApplicationShutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }
}
