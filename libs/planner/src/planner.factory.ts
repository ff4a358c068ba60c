import { driverNamed } from '@toolgate/sdk';
import type { DeterministicPlannerOptions } from './deterministic/deterministic.planner';
import type { PlannerModuleOptions } from './planner.config';
import { PLANNER_DRIVERS } from './planning/planner.drivers';
import type { Planner } from './planning/planner.port';

/** The planner the configuration asks for, with the deterministic planner's collaborators (unused by the others). */
export function createPlanner(options: Pick<PlannerModuleOptions, 'planner' | 'llm'>, collaborators: DeterministicPlannerOptions = {}): Planner {
  return driverNamed('TOOLGATE_PLANNER', PLANNER_DRIVERS, options.planner).create(options, collaborators);
}
