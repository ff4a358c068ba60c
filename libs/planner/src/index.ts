export { planFollowUp } from './conversation/follow-up.planner';
export { emptySession, followUpOf, recordTurn, type SessionState, type SessionTurn, sessionFrom } from './conversation/session.state';
export type { DeterministicPlannerOptions } from './deterministic/deterministic.planner';
export { isBinding, parseBinding } from './deterministic/schema.linker';
export { type CompanionDeclaration, companionEdges } from './graph/companion-edges.builder';
export { ToolGraph, toolKey } from './graph/tool.graph';
export { CandidateTools } from './llm/candidate.tools';
export { LlmPlanner, type LlmPlannerOptions } from './llm/llm.planner';
export { planRequest, selectionRequest } from './llm/llm.requests';
export { promptTokens } from './llm/prompt-tokens.counter';
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
  TokenUsage,
  ToolCall,
  ToolChoice,
} from './plan/plan.types';
export { checkTaskInput } from './plan/task-input.validator';
export { type ImageInputOptions, type LlmEndpointOptions, type PlannerEnv, type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from './planner.config';
export { createPlanner } from './planner.factory';
export { PlannerModule } from './planner.module';
export { PLANNER_OPTIONS } from './planner.module-definition';
export { Planner } from './planning/planner.port';
export { createImageDescriber } from './understanding/image-describer.factory';
export { ImageDescriber, type ImageDescription } from './understanding/image-describer.port';
export { sniffImageFormat } from './understanding/image-input.decoder';
export { OpenAIVisionDescriber, VISION_SYSTEM_PROMPT, type VisionDescriberOptions } from './understanding/openai-vision.image-describer';
export { TESSERACT_INSTALL_COMMAND, TesseractImageDescriber, type TesseractOptions } from './understanding/tesseract.image-describer';
