export type {
  Binding,
  Decision,
  MissingArgument,
  Plan,
  PlanningCandidate,
  PlanningPrincipal,
  PlanStep,
  ReplanFeedback,
  Selection,
  TaskImage,
  TaskInput,
  ToolCall,
  ToolChoice,
} from './plan/plan.types';
export { type LlmEndpointOptions, type PlannerEnv, type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from './planner.config';
export { Planner } from './planning/planner.port';
export { ImageDescriber, type ImageDescription } from './understanding/image-describer.port';
