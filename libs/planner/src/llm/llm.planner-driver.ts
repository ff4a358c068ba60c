import type { PlannerDriver } from '../planning/planner.driver';
import { LlmPlanner } from './llm.planner';

/** A model on the OpenAI-compatible endpoint proposes; the runtime still validates every plan. */
export const llmPlannerDriver = {
  name: 'llm',
  // An OpenAI key or base URL alone switches to the LLM planner, as in the production profile.
  impliedBy: (env) => env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined,
  create: (options) => new LlmPlanner(options.llm),
} as const satisfies PlannerDriver<'llm'>;
