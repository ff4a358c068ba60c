export { RunEventBus } from './audit/run-event.bus';
export { type ClaimedRun, type ResumePoint, RunStore } from './audit/run-store.port';
export { isTruncatedOutput, StoredOutputBudget, type TruncatedOutput } from './audit/stored-output.budget';
export { TypeormRunStore } from './audit/typeorm.run-store';
export {
  DEFAULT_EXECUTOR_OPTIONS,
  type ExecutorEnv,
  type ExecutorModuleOptions,
  executorEnvSchema,
  executorModuleOptionsFromEnv,
  executorOptionsFromEnv,
  type RunLimits,
  type RunStorageOptions,
  runStorageOptionsFromEnv,
} from './executor.config';
export { ExecutorModule } from './executor.module';
export { EXECUTOR_OPTIONS, type ExecutorModuleExtras } from './executor.module-definition';
export { HealthMonitor } from './health/health.monitor';
export { HealthGatedToolInvoker } from './health/health-gated.tool-invoker';
export { type HealthVerdict, ToolHealthProbe } from './health/tool-health.probe';
export { IsolatedToolInvoker } from './isolation/isolated.tool-invoker';
export { remoteExecutionRoute } from './remote/remote.execution-route';
export {
  DEFAULT_ISOLATION_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type HealthOptions,
  type IsolationOptions,
  type ResilienceEnv,
  type ResilienceOptions,
  resilienceEnvSchema,
  resilienceOptionsFromEnv,
} from './resilience/resilience.config';
export { ResilientToolInvoker } from './resilience/resilient.tool-invoker';
export { ExecutionRoutes } from './routing/execution.routes';
export type { ExecutionKind, ExecutionRoute, ExecutionRouteContext, ExecutionRouteHandlers } from './routing/execution-route.types';
export { EXECUTION_ROUTES } from './routing/execution-routes.list';
export { RoutingToolInvoker } from './routing/routing.tool-invoker';
export { serverExecutionRoute } from './runtime/server.execution-route';
export { type AttemptReport, type Invocation, type PreparedCall, ToolInvoker, type ToolProgress } from './runtime/tool-invoker.port';
export { type ExecuteOptions, PlanRunner } from './scheduling/plan.runner';
export { STALE_HEARTBEATS } from './scheduling/run.lifecycle';
export { RunMaintenance } from './scheduling/run.maintenance';
export { PlanValidator } from './validation/plan.validator';
export { SchemaCache } from './validation/schema.cache';
