import { DeterministicPlanner } from '../deterministic/deterministic.planner';
import { LlmPlanner } from '../llm/llm.planner';
import type { PlannerDriver } from '../planning/planner.driver';
import { AutoPlanner } from './auto.planner';

/** Deterministic first, the model only when unsure: the default once a model is configured. */
export const autoPlannerDriver = {
  name: 'auto',
  // An OpenAI key or base URL alone switches to it, as in the production profile.
  impliedBy: (env) => env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined,
  create: (options, collaborators) => new AutoPlanner(new DeterministicPlanner(collaborators), new LlmPlanner(options.llm), options.llm.escalateBelow),
} as const satisfies PlannerDriver<'auto'>;
