export type { RunEvent, RunFilter } from './audit/run-event.types';
export { RunEventBus, runIdOf, type SequencedRunEvent } from './audit/run-event-bus';
export { RunRecorder } from './audit/run-recorder.port';
export { TypeormRunRecorder } from './audit/typeorm-run-recorder';
export { DEFAULT_EXECUTOR_OPTIONS, type ExecutorEnv, type ExecutorModuleOptions, executorEnvSchema, executorOptionsFromEnv } from './executor.config';
export { ExecutorModule } from './executor.module';
export { EXECUTOR_OPTIONS, type ExecutorModuleExtras } from './executor.module-definition';
export { HealthMonitor, type HealthTargets, type ToolHealth } from './health/health.monitor';
export { HealthGatedToolInvoker } from './health/health-gated.tool-invoker';
export { type HealthVerdict, InProcessHealthProbe, ToolHealthProbe } from './health/tool-health.probe';
export { IsolatedToolInvoker, type PluginCodeLookup } from './isolation/isolated.tool-invoker';
export { AdaptiveBreaker, type BreakerMode } from './resilience/adaptive.breaker';
export { isToolFault, isTransient, provesNotStarted } from './resilience/failure-classification';
export {
  DEFAULT_HEALTH_OPTIONS,
  DEFAULT_ISOLATION_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type HealthOptions,
  type IsolationOptions,
  type ResilienceEnv,
  type ResilienceOptions,
  resilienceEnvSchema,
  resilienceOptionsFromEnv,
} from './resilience/resilience.config';
export { type BreakerSnapshot, type BreakerStateName, ResilientToolInvoker, type ToolManifestLookup } from './resilience/resilient.tool-invoker';
export type { Run, RunOwner, RunStatus, RunStep, StepError, StepStatus } from './run/run.types';
export { InProcessToolInvoker } from './runtime/in-process.tool-invoker';
export { fallbackCovers, toToolgateError } from './runtime/tool-errors';
export { type AttemptReport, type Invocation, ToolInvoker } from './runtime/tool-invoker.port';
export { type ExecuteOptions, PlanRunner } from './scheduling/plan.runner';
export { FORBIDDEN_KEYS } from './validation/argument-guards';
export { type PlanLimits, PlanValidator, type ResolvedTool, type ValidatedPlan, type ValidatedStep } from './validation/plan.validator';
export { SchemaCache } from './validation/schema.cache';
