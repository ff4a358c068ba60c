import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import { TerminusModule } from '@nestjs/terminus';
import { ExecutorModule } from '@toolgate/executor';
import { PlannerModule } from '@toolgate/planner';
import { EmbeddingCacheService, RegistryModule } from '@toolgate/registry';
import { RetrievalModule } from '@toolgate/retrieval';
import { PrincipalGuard } from './auth/principal.guard';
import { PrincipalResolver } from './auth/principal.resolver';
import { APP_CONFIG, type AppConfig } from './config/app.config';
import { ConsoleModule } from './console/console.module';
import { ErrorFilter } from './graphql/error.filter';
import { GraphqlWsTransport } from './graphql/graphql-ws.transport';
import { InputDepthPipe } from './graphql/input-depth.pipe';
import { OperationLimitsPlugin } from './graphql/operation-limits.plugin';
import { OperationLimits } from './graphql/operation-limits.service';
import { HealthController } from './health/health.controller';
import { loggingModule } from './logging/logging.module';
import { McpHttpController } from './mcp/mcp-http.controller';
import { McpServerFactory } from './mcp/mcp-server.factory';
import { GatewayCollectors } from './metrics/gateway.collectors';
import { MetricsController } from './metrics/metrics.controller';
import { PlanningResolver } from './planning/planning.resolver';
import { RunsResolver } from './runs/runs.resolver';
import { graphqlContext } from './runs/subscription.context';
import { ToolHealthResolver } from './runs/tool-health.resolver';
import { ToolQualityResolver } from './runs/tool-quality.resolver';
import { ToolsResolver } from './tools/tools.resolver';
import { CancelRunUseCase } from './use-cases/cancel-run.use-case';
import { CandidateFinder } from './use-cases/candidate-finder.service';
import { DecideStepUseCase } from './use-cases/decide-step.use-case';
import { DeclaredRelationsSubscriber } from './use-cases/declared-relations.subscriber';
import { ExecutePlanUseCase } from './use-cases/execute-plan.use-case';
import { FindRunUseCase } from './use-cases/find-run.use-case';
import { ListRunsUseCase } from './use-cases/list-runs.use-case';
import { PlanTaskUseCase } from './use-cases/plan-task.use-case';
import { PlanningContext } from './use-cases/planning-context.service';
import { RunLearningSubscriber } from './use-cases/run-learning.subscriber';
import { RunTaskUseCase } from './use-cases/run-task.use-case';
import { RunVisibility } from './use-cases/run-visibility.service';
import { SearchFunnelUseCase } from './use-cases/search-funnel.use-case';
import { SearchToolsUseCase } from './use-cases/search-tools.use-case';
import { SelectToolsUseCase } from './use-cases/select-tools.use-case';
import { INDEX_SYNC_MODE, type IndexSyncMode, SyncToolIndexUseCase } from './use-cases/sync-tool-index.use-case';
import { TaskUnderstanding } from './use-cases/task-understanding.service';
import { ToolQualityUseCase } from './use-cases/tool-quality.use-case';
import { WatchRunUseCase } from './use-cases/watch-run.use-case';

/** What the transports (resolvers, the CLI) call: one `execute()` each. */
const USE_CASES = [
  SearchToolsUseCase,
  SearchFunnelUseCase,
  SyncToolIndexUseCase,
  SelectToolsUseCase,
  PlanTaskUseCase,
  RunTaskUseCase,
  ExecutePlanUseCase,
  DecideStepUseCase,
  CancelRunUseCase,
  FindRunUseCase,
  ListRunsUseCase,
  WatchRunUseCase,
  ToolQualityUseCase,
];

/** Registry, retrieval, planning and the use cases that span them; shared by the server and the CLI. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, { logDestination = 1, indexSync = 'follow', longLived = true }: { logDestination?: 1 | 2; indexSync?: IndexSyncMode; longLived?: boolean } = {}): DynamicModule {
    // Each lib module declares what it imports; none is global.
    const registry = RegistryModule.forRoot(config.registry);
    // Document vectors persist in the catalog database: a restart embeds only new texts.
    const retrieval = RetrievalModule.forRootAsync({
      imports: [registry],
      inject: [EmbeddingCacheService],
      useFactory: (embeddingStore: EmbeddingCacheService) => ({ ...config.retrieval, embeddingStore }),
    });
    const planner = PlannerModule.forRoot({ ...config.planner, imports: [retrieval] });
    // A long-lived server checks plugin health, maintains runs (heartbeat, crash recovery, retention) and warms workers at boot; a short-lived CLI command does none of it.
    const executor = ExecutorModule.forRoot({
      ...config.executor,
      health: { ...config.executor.health, scheduled: longLived },
      storage: { ...config.executor.storage, maintenance: longLived },
      worker: { ...config.executor.worker, warmAtBoot: longLived && config.executor.worker.warmAtBoot },
      imports: [registry],
    });
    return {
      module: CoreModule,
      imports: [loggingModule(config.gateway.LOG_LEVEL, logDestination), registry, retrieval, planner, executor],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: INDEX_SYNC_MODE, useValue: indexSync },
        CandidateFinder,
        TaskUnderstanding,
        PlanningContext,
        RunLearningSubscriber,
        DeclaredRelationsSubscriber,
        RunVisibility,
        ...USE_CASES,
      ],
      // The transports also read the catalog, access policies, the index and tool health (health endpoints, toolHealth).
      exports: [APP_CONFIG, ...USE_CASES, registry, retrieval, executor],
    };
  }
}

/** The HTTP server: GraphQL API, MCP at /mcp, the console at /console, /metrics and health endpoints over the core. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        TerminusModule.forRoot({ logger: false }),
        ConsoleModule.forRoot(config.gateway.TOOLGATE_CONSOLE),
        GraphQLModule.forRoot<ApolloDriverConfig>({
          driver: ApolloDriver,
          autoSchemaFile: true,
          sortSchema: true,
          path: '/graphql',
          playground: false,
          introspection: config.gateway.GRAPHQL_INTROSPECTION,
          includeStacktraceInErrorResponses: false,
          context: graphqlContext,
          // GraphQL over WebSocket is GraphqlWsTransport; OperationLimitsPlugin (a provider) limits HTTP.
        }),
      ],
      controllers: [HealthController, McpHttpController, MetricsController],
      providers: [
        ToolsResolver,
        PlanningResolver,
        RunsResolver,
        ToolHealthResolver,
        ToolQualityResolver,
        PrincipalResolver,
        OperationLimits,
        OperationLimitsPlugin,
        GraphqlWsTransport,
        McpServerFactory,
        GatewayCollectors,
        { provide: APP_GUARD, useClass: PrincipalGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
        // Depth first: class-validator walks input recursively.
        { provide: APP_PIPE, useClass: InputDepthPipe },
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }) },
      ],
    };
  }
}
