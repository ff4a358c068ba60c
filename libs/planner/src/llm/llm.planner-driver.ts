import type { PlannerDriver } from '../planning/planner.driver';
import { LlmPlanner } from './llm.planner';

/** A model on the OpenAI-compatible endpoint plans every task (TOOLGATE_PLANNER=llm); the runtime still validates every plan. */
export const llmPlannerDriver = {
  name: 'llm',
  create: (options) => new LlmPlanner(options.llm),
} as const satisfies PlannerDriver<'llm'>;
