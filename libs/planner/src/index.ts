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
export { Planner } from './planning/planner.port';
export { ImageDescriber, type ImageDescription } from './understanding/image-describer.port';
