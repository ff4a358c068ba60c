export type { Binding, Decision, Plan, PlanStep, TaskInput } from './plan/plan.types';
