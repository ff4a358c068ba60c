import type { PlannerDriver } from '../planning/planner.driver';
import { DeterministicPlanner } from './deterministic.planner';

/** No model: sub-goals, tool matching, schema linking, argument filling (the zero-config default). */
export const deterministicPlannerDriver = {
  name: 'deterministic',
  create: (_options, collaborators) => new DeterministicPlanner(collaborators),
} as const satisfies PlannerDriver<'deterministic'>;
