import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CatalogService, McpConnections, RemoteWorkers } from '@toolgate/registry';
import { RunEventBus } from './audit/run-event.bus';
import { RunStore } from './audit/run-store.port';
import { TypeormRunStore } from './audit/typeorm.run-store';
import { DEFAULT_EXECUTOR_OPTIONS, type ExecutorModuleOptions } from './executor.config';
import { EXECUTION_ROUTE_LIST, EXECUTOR_OPTIONS, ExecutorConfigurableModule } from './executor.module-definition';
import { HealthMonitor } from './health/health.monitor';
import { HealthGatedToolInvoker } from './health/health-gated.tool-invoker';
import { ToolHealthProbe } from './health/tool-health.probe';
import { ResilientToolInvoker } from './resilience/resilient.tool-invoker';
import { ExecutionRoutes } from './routing/execution.routes';
import type { ExecutionRoute } from './routing/execution-route.types';
import { RoutingToolInvoker } from './routing/routing.tool-invoker';
import { ToolInvoker } from './runtime/tool-invoker.port';
import { PlanRunner } from './scheduling/plan.runner';
import { RunMaintenance } from './scheduling/run.maintenance';
import { PlanValidator } from './validation/plan.validator';
import { SchemaCache } from './validation/schema.cache';

const resolved = (options: Partial<ExecutorModuleOptions>): ExecutorModuleOptions => ({ ...DEFAULT_EXECUTOR_OPTIONS, ...options });

/**
 * The runtime: plan validation, the runner, and the invoker chain every call goes through — health
 * gate → resilience (timeout, retries, breaker, bulkhead per tool@version) → the route of the tool's
 * execution kind (`server`: plugin workers, or in-process with isolation `none`; `mcp`: the tool's MCP server;
 * `remote`: tool workers over NATS). Runs are recorded on
 * the catalog database (outputs within `storage` caps) and streamed on the RunEventBus; with
 * `storage.maintenance`, RunMaintenance keeps their heartbeat, recovers what a stopped process left and
 * applies the retention. Needs the registry's providers (its module in
 * `imports`, or global). Each piece is its own provider so Nest shuts each down (calls drained, workers terminated).
 *
 * ```ts
 * ExecutorModule.forRoot({ ...executorModuleOptionsFromEnv(env), imports: [RegistryModule.forRoot(registryOptions)] })
 * ```
 */
@Module({
  providers: [
    SchemaCache,
    PlanValidator,
    PlanRunner,
    RunMaintenance,
    RunEventBus,
    { provide: RunStore, useClass: TypeormRunStore },
    {
      provide: ExecutionRoutes,
      inject: [EXECUTION_ROUTE_LIST, CatalogService, McpConnections, RemoteWorkers, EXECUTOR_OPTIONS],
      useFactory: (routes: readonly ExecutionRoute[], catalog: CatalogService, mcp: McpConnections, remote: RemoteWorkers, options: Partial<ExecutorModuleOptions>) =>
        new ExecutionRoutes(routes, { catalog, mcp, remote, options: resolved(options) }),
    },
    { provide: ToolHealthProbe, useExisting: ExecutionRoutes },
    {
      provide: ResilientToolInvoker,
      inject: [ExecutionRoutes, CatalogService, EXECUTOR_OPTIONS],
      useFactory: (routes: ExecutionRoutes, catalog: CatalogService, options: Partial<ExecutorModuleOptions>) =>
        new ResilientToolInvoker(new RoutingToolInvoker(routes), catalog, resolved(options).resilience),
    },
    {
      provide: HealthMonitor,
      inject: [CatalogService, ToolHealthProbe, EXECUTOR_OPTIONS],
      useFactory: (catalog: CatalogService, probe: ToolHealthProbe, options: Partial<ExecutorModuleOptions>) => new HealthMonitor(catalog, probe, resolved(options).health),
    },
    {
      provide: ToolInvoker,
      inject: [ResilientToolInvoker, HealthMonitor],
      useFactory: (resilient: ResilientToolInvoker, monitor: HealthMonitor) => new HealthGatedToolInvoker(resilient, monitor),
    },
  ],
  exports: [PlanValidator, PlanRunner, RunMaintenance, RunEventBus, RunStore, ExecutionRoutes, ResilientToolInvoker, HealthMonitor, ToolInvoker],
})
export class ExecutorModule extends ExecutorConfigurableModule implements OnApplicationBootstrap {
  constructor(
    private readonly monitor: HealthMonitor,
    @Inject(EXECUTOR_OPTIONS) private readonly options: Partial<ExecutorModuleOptions>,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (resolved(this.options).health.scheduled) this.monitor.start();
  }
}
