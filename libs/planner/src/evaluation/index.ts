/** `@toolgate/planner/evaluation`: offline evaluation (TaskBench plans, argument filling) and its metrics; not part of the runtime surface. */
export { type ArgumentEvalResult, type ArgumentMiss, type ArgumentTask, evaluateArgumentFilling, readArgumentTasks } from '../arguments/argument.evaluator';
export { type ArgumentFailureKind, type CallFailure, type CallsVerdict, checkCall, checkCalls, matchesAcceptable, type PredictedCall, standardize } from './bfcl.checker';
export { withDistractors } from './bfcl.distractors';
export { type BfclFunction, type BfclGoldCall, type BfclSample, type BfclSchema, bfclToJsonSchema, readBfclAnswers, readBfclSamples } from './bfcl.reader';
export { type CallEvalOptions, type CallEvalResult, type CallSampleRecord, evaluateCalls } from './calls.evaluator';
export {
  chainGraph,
  DEFAULT_PLAN_EVAL,
  evaluatePlanner,
  FLOOR_CHAIN_LENGTHS,
  type PlanEvalOptions,
  type PlanEvalResult,
  type PlanEvalSplit,
  type PlanFloor,
  type PlannerFactoryContext,
  type PlanSampleRecord,
  planGraph,
  splitSamples,
  taskBenchDescriptor,
} from './plan.evaluator';
export { latencySummary, linkF1, nodeF1, type PlanGraph, type PlanReport, PlanScorer, type SampleScore, sameNodes, sameSet, setF1 } from './plan.metrics';
export { parseStepLine, readTaskBench, type TaskBenchDataset, type TaskBenchSample, type TaskBenchTool } from './taskbench.reader';
