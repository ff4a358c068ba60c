import type { Plan, PlanningCandidate, PlanningPrincipal, ReplanFeedback, Selection, TaskInput } from '../plan/plan.types';

/**
 * Port: decides whether and how to use tools. Drivers: deterministic (default, no model) and LLM
 * (OpenAI-compatible). A planner only proposes; the executor decides what runs.
 */
export abstract class Planner {
  abstract readonly kind: string;
  /** One round of tool choice: decision plus the calls (no ordering between them). */
  abstract select(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Selection>;
  /** A DAG of steps over the candidates, with bindings between steps. */
  abstract plan(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Plan>;
  /** A repaired plan after a step failed; the executor bounds how often this is called. */
  abstract replan(plan: Plan, feedback: ReplanFeedback): Promise<Plan>;
}
