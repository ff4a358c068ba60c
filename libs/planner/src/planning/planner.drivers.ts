import { autoPlannerDriver } from '../auto/auto.planner-driver';
import { deterministicPlannerDriver } from '../deterministic/deterministic.planner-driver';
import { llmPlannerDriver } from '../llm/llm.planner-driver';

/** The planning strategies (TOOLGATE_PLANNER), one line each; the first is the default. */
export const PLANNER_DRIVERS = [deterministicPlannerDriver, autoPlannerDriver, llmPlannerDriver] as const;
