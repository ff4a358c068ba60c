export { CandidateTools } from './llm/candidate-tools';
export { LlmPlanner, type LlmPlannerOptions } from './llm/llm.planner';
export { planRequest, selectionRequest } from './llm/llm-requests';
export { countTokens, promptTokens } from './llm/prompt-tokens';
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
export { type ImageInputOptions, type LlmEndpointOptions, type PlannerEnv, type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from './planner.config';
export { Planner } from './planning/planner.port';
export { DisabledImageDescriber } from './understanding/disabled.image-describer';
export { createImageDescriber } from './understanding/image-describer.factory';
export { ImageDescriber, type ImageDescription } from './understanding/image-describer.port';
export { DEFAULT_MAX_IMAGE_BYTES, type DecodedImage, decodeImages, type ImageFormat, sniffImageFormat } from './understanding/image-input';
export { OpenAIVisionDescriber, VISION_SYSTEM_PROMPT, type VisionDescriberOptions } from './understanding/openai-vision.image-describer';
export { DEFAULT_TESSERACT_OPTIONS, TESSERACT_INSTALL_COMMAND, TesseractImageDescriber, type TesseractOptions } from './understanding/tesseract.image-describer';
