import { DeterministicPlanner, type DeterministicPlannerOptions } from './deterministic/deterministic.planner';
import { LlmPlanner } from './llm/llm.planner';
import type { PlannerModuleOptions } from './planner.config';
import type { Planner } from './planning/planner.port';

/** The planner the configuration asks for: the LLM one on the OpenAI-compatible endpoint, else the deterministic one with its dependencies. */
export function createPlanner(options: Pick<PlannerModuleOptions, 'planner' | 'llm'>, deterministic: DeterministicPlannerOptions = {}): Planner {
  return options.planner === 'llm' ? new LlmPlanner(options.llm) : new DeterministicPlanner(deterministic);
}
