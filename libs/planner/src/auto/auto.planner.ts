import { Logger } from '@nestjs/common';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Plan, PlanningCandidate, PlanningPrincipal, ReplanFeedback, Selection, TaskInput } from '../plan/plan.types';
import { Planner } from '../planning/planner.port';

/** Failures of the model's side: the deterministic answer stands. A bad task is the caller's error either way. */
const MODEL_FAILURES = new Set<string>([ErrorCode.UNAVAILABLE, ErrorCode.TIMEOUT, ErrorCode.INVALID_PLAN, ErrorCode.BUDGET_EXCEEDED, ErrorCode.INVALID_CONFIG]);

type Decided = Pick<Plan, 'confidence' | 'explanation' | 'planner'>;

/**
 * Plans deterministically (instant, free, explainable) and hands the task to the LLM planner only
 * when the deterministic plan's confidence is below the threshold. When the model fails, the
 * deterministic plan stands, with why in its explanation: an LLM outage never stops planning.
 */
export class AutoPlanner extends Planner {
  readonly kind = 'auto';
  private readonly logger = new Logger('AutoPlanner');

  constructor(
    private readonly fast: Planner,
    private readonly model: Planner,
    /** TOOLGATE_PLANNER_ESCALATE_BELOW */
    private readonly escalateBelow: number,
  ) {
    super();
  }

  async select(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Selection> {
    const first = await this.fast.select(task, candidates, principal);
    return this.unsure(first) ? this.escalate(first, () => this.model.select(task, candidates, principal)) : first;
  }

  async plan(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Plan> {
    const first = await this.fast.plan(task, candidates, principal);
    return this.unsure(first) ? this.escalate(first, () => this.model.plan(task, candidates, principal)) : first;
  }

  /** A plan the model made is repaired by the model; a deterministic one first by its own planner. */
  async replan(plan: Plan, feedback: ReplanFeedback): Promise<Plan> {
    if (plan.planner === this.model.kind) return this.model.replan(plan, feedback);
    const first = await this.fast.replan(plan, feedback);
    return this.unsure(first) ? this.escalate(first, () => this.model.replan(plan, feedback)) : first;
  }

  private unsure(decided: Decided): boolean {
    return (decided.confidence ?? 1) < this.escalateBelow;
  }

  private async escalate<T extends Decided>(first: T, ask: () => Promise<T>): Promise<T> {
    const why = `the deterministic plan's confidence ${first.confidence} is below ${this.escalateBelow} (TOOLGATE_PLANNER_ESCALATE_BELOW)`;
    try {
      const better = await ask();
      return { ...better, explanation: [`escalated to the LLM planner: ${why}`, better.explanation].filter(Boolean).join('. ') };
    } catch (error) {
      if (!(error instanceof ToolgateError) || !MODEL_FAILURES.has(error.code)) throw error;
      this.logger.warn(`escalation failed, the deterministic plan stands: ${error.describe()}`);
      return {
        ...first,
        explanation: [first.explanation, `the LLM planner was asked (${why}) but failed with ${error.code}: ${error.message}; this is the deterministic plan`].filter(Boolean).join('. '),
      };
    }
  }
}
