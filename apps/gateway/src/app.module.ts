import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import { TerminusModule } from '@nestjs/terminus';
import { ExecutorModule, HealthGatedToolInvoker, ToolInvoker } from '@toolgate/executor';
import { PlannerModule } from '@toolgate/planner';
import { EmbeddingCacheService, RegistryModule } from '@toolgate/registry';
import { RetrievalModule } from '@toolgate/retrieval';
import { PrincipalGuard } from './auth/principal.guard';
import { PrincipalResolver } from './auth/principal.resolver';
import { APP_CONFIG, type AppConfig } from './config/app.config';
import { ErrorFilter } from './graphql/error.filter';
import { operationLimitsPlugin } from './graphql/operation-limits.plugin';
import { HealthController } from './health/health.controller';
import { loggingModule } from './logging/logging.module';
import { PlanningResolver } from './planning/planning.resolver';
import { RunAccessService } from './runs/run-access.service';
import { RunAuditModule } from './runs/run-audit.module';
import { RunsResolver } from './runs/runs.resolver';
import { graphqlContext } from './runs/subscription-context';
import { ToolExecutionModule } from './runs/tool-execution.module';
import { ToolHealthResolver } from './runs/tool-health.resolver';
import { ToolsResolver } from './tools/tools.resolver';
import { ExecutePlanUseCase } from './use-cases/execute-plan.use-case';
import { PlanTaskUseCase } from './use-cases/plan-task.use-case';
import { RunTaskUseCase } from './use-cases/run-task.use-case';
import { SearchToolsUseCase } from './use-cases/search-tools.use-case';
import { INDEX_SYNC_MODE, type IndexSyncMode, SyncToolIndexUseCase } from './use-cases/sync-tool-index.use-case';

/** Registry, retrieval, planning and the use cases that span them; shared by the server and the CLI. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, { logDestination = 1, indexSync = 'follow' }: { logDestination?: 1 | 2; indexSync?: IndexSyncMode } = {}): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        loggingModule(config.gateway.LOG_LEVEL, logDestination),
        RegistryModule.forRoot({ ...config.registry, isGlobal: true }),
        // Document vectors persist in the catalog database: a restart embeds only new texts.
        RetrievalModule.forRootAsync({ isGlobal: true, inject: [EmbeddingCacheService], useFactory: (embeddingStore: EmbeddingCacheService) => ({ ...config.retrieval, embeddingStore }) }),
        PlannerModule.forRoot({ ...config.planner, isGlobal: true }),
        RunAuditModule,
        ToolExecutionModule.forRoot(config.resilience),
        ExecutorModule.forRoot({ ...config.executor, isGlobal: true, providers: [{ provide: ToolInvoker, useExisting: HealthGatedToolInvoker }] }),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: INDEX_SYNC_MODE, useValue: indexSync },
        SearchToolsUseCase,
        SyncToolIndexUseCase,
        PlanTaskUseCase,
        RunTaskUseCase,
        ExecutePlanUseCase,
        RunAccessService,
      ],
      exports: [APP_CONFIG, SearchToolsUseCase, SyncToolIndexUseCase, PlanTaskUseCase, RunTaskUseCase, ExecutePlanUseCase, RunAccessService],
    };
  }
}

/** The HTTP server: GraphQL API and health endpoints over the core. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        TerminusModule.forRoot({ logger: false }),
        GraphQLModule.forRoot<ApolloDriverConfig>({
          driver: ApolloDriver,
          autoSchemaFile: true,
          sortSchema: true,
          path: '/graphql',
          playground: false,
          introspection: config.gateway.GRAPHQL_INTROSPECTION,
          includeStacktraceInErrorResponses: false,
          context: graphqlContext,
          subscriptions: { 'graphql-ws': { path: '/graphql' } },
          plugins: [operationLimitsPlugin({ maxDepth: config.gateway.GRAPHQL_MAX_DEPTH, maxComplexity: config.gateway.GRAPHQL_MAX_COMPLEXITY })],
        }),
      ],
      controllers: [HealthController],
      providers: [
        ToolsResolver,
        PlanningResolver,
        RunsResolver,
        ToolHealthResolver,
        PrincipalResolver,
        { provide: APP_GUARD, useClass: PrincipalGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }) },
      ],
    };
  }
}
