import type { Plan, ReplanFeedback } from '@toolgate/planner';
import { stepErrorOf, toToolgateError } from '../runtime/tool.errors';
import type { PlanValidator, ValidatedPlan } from '../validation/plan.validator';
import { callOf, type ExecuteOptions, now, OPEN, type RunState } from './run.state';

/**
 * Bounded re-plans after a failed step: the failure and the completed outputs go to `replan`, the
 * repaired plan is validated like the first, completed steps are kept as they are (never re-run).
 */
export class RunReplanner {
  constructor(private readonly validator: PlanValidator) {}

  /** Once nothing runs: the queued repair, or the reason the run ends without one. */
  async repair(state: RunState): Promise<void> {
    const { slot, error } = state.repair as NonNullable<RunState['repair']>;
    state.repair = null;
    const attempt = state.run.replans + 1;
    for (const open of state.slots.filter((s) => OPEN.has(s.entry.status))) {
      await state.finish(open, { status: 'SKIPPED', tool: open.entry.tool, reason: `superseded by re-plan ${attempt} after step ${slot.step.id} failed` });
    }
    const { principal, options } = state;
    const feedback: ReplanFeedback = {
      task: options.task ?? { text: state.run.task ?? '', images: [] },
      candidates: options.candidates ?? [],
      principal: { tenant: principal.tenant, subject: principal.subject, roles: [...principal.roles] },
      failedStep: slot.step.id,
      error: stepErrorOf(error),
      attempt,
      completed: Object.fromEntries(state.outputs),
    };
    let next: Plan;
    let validated: ValidatedPlan;
    try {
      next = await (options.replan as NonNullable<ExecuteOptions['replan']>)(state.validated.plan, feedback);
      validated = this.validator.validate(next, principal, { maxSteps: options.maxSteps, cost: options.cost });
    } catch (thrown) {
      state.endReason = `re-plan ${attempt} after step ${slot.step.id} failed was refused: ${toToolgateError(thrown).describe()}`;
      return;
    }
    const changed = validated.steps.find((s) => state.outputs.has(s.id) && state.calls.get(s.id) !== callOf(s));
    if (changed) {
      state.endReason = `re-plan ${attempt} changes step ${changed.id}, which already ran; a completed step is never run again`;
      return;
    }
    state.run.replans = attempt;
    state.run.planId = next.id;
    state.validated = validated;
    // The new slots first, so the resume point recorded with REPLANNED names their entries.
    state.slots = validated.steps.filter((s) => !state.outputs.has(s.id)).map((s) => state.slotFor(s));
    await state.record({ type: 'REPLANNED', at: now(), runId: state.run.id, planId: next.id, attempt, reason: `step ${slot.step.id} failed: ${error.code}: ${error.message}` }, state.resumePoint());
  }
}
