export { type ArgumentEvalResult, type ArgumentMiss, type ArgumentTask, evaluateArgumentFilling, readArgumentTasks } from './arguments/argument.evaluator';
export type { ArgumentFill, Span as ArgumentSpan } from './arguments/argument-fill.types';
export { fillArguments } from './arguments/argument-filler';
export { clarifyQuestion } from './arguments/clarify-question';
export { planFollowUp } from './conversation/follow-up';
export { emptySession, followUpOf, recordTurn, SESSION_TURNS, type SessionState, type SessionTurn, sessionFrom } from './conversation/session-state';
export type { ArgumentFillContext, ArgumentFiller, FilledArguments } from './deterministic/argument-filler';
export {
  type CompanionOptions,
  DEFAULT_COMPANIONS,
  DEFAULT_SCHEMA_FIT_BAND,
  DeterministicPlanner,
  type DeterministicPlannerOptions,
  fillsCompletely,
} from './deterministic/deterministic.planner';
export { instructionAimedAtSystem } from './deterministic/instruction.detector';
export { bindingTo, isBinding, linkBySchema, parseBinding, type SchemaLink } from './deterministic/schema.linker';
export { orderSteps } from './deterministic/step.orderer';
export { DEFAULT_SPLIT, type SplitOptions, type SplitResult, type SubGoal, splitSubGoals } from './deterministic/sub-goal.splitter';
export { DEFAULT_MATCHER_WEIGHTS, type MatcherWeights, type ToolMatch, ToolMatcher } from './deterministic/tool.matcher';
export {
  DEFAULT_PLAN_EVAL,
  evaluatePlanner,
  type PlanEvalOptions,
  type PlanEvalResult,
  type PlanEvalSplit,
  type PlannerFactoryContext,
  planGraph,
  splitSamples,
  taskBenchDescriptor,
} from './evaluation/plan.evaluator';
export { linkF1, nodeF1, type PlanGraph, type PlanReport, PlanScorer, sameNodes, setF1 } from './evaluation/plan.metrics';
export { parseStepLine, readTaskBench, type TaskBenchDataset, type TaskBenchSample, type TaskBenchTool } from './evaluation/taskbench.reader';
export { type EdgeEvidence, type Predecessor, type ToolEdge, ToolGraph, toolKey } from './graph/tool.graph';
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
export { createPlanner } from './planner.factory';
export { PlannerModule } from './planner.module';
export { PLANNER_OPTIONS } from './planner.module-definition';
export { Planner } from './planning/planner.port';
export { DisabledImageDescriber } from './understanding/disabled.image-describer';
export { createImageDescriber } from './understanding/image-describer.factory';
export { ImageDescriber, type ImageDescription } from './understanding/image-describer.port';
export { DEFAULT_MAX_IMAGE_BYTES, type DecodedImage, decodeImages, type ImageFormat, sniffImageFormat } from './understanding/image-input';
export { OpenAIVisionDescriber, VISION_SYSTEM_PROMPT, type VisionDescriberOptions } from './understanding/openai-vision.image-describer';
export { DEFAULT_TESSERACT_OPTIONS, TESSERACT_INSTALL_COMMAND, TesseractImageDescriber, type TesseractOptions } from './understanding/tesseract.image-describer';
