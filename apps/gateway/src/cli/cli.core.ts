import 'reflect-metadata';
import { Module, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RunEventBus } from '@toolgate/executor';
import { AccessPolicyService, CatalogService, McpConnections, type Principal, UsageExampleService } from '@toolgate/registry';
import { Logger } from 'nestjs-pino';
import { CoreModule } from '../app.module';
import { commandLinePrincipal } from '../auth/command-line.principal';
import { BOOT_OPTIONS } from '../boot.options';
import type { AppConfig } from '../config/app.config';
import { ExecutePlanUseCase } from '../use-cases/execute-plan.use-case';
import { FindRunUseCase } from '../use-cases/find-run.use-case';
import { ListRunsUseCase } from '../use-cases/list-runs.use-case';
import { PlanTaskUseCase } from '../use-cases/plan-task.use-case';
import { RunTaskUseCase } from '../use-cases/run-task.use-case';
import { SearchToolsUseCase } from '../use-cases/search-tools.use-case';
import { SyncToolIndexUseCase } from '../use-cases/sync-tool-index.use-case';
import { fetchLocalModelIfMissing } from './local-model.fetch';

/** The use cases that read the tool index sync it on first use; the other commands never pay for it. */
export interface CliCore {
  catalog: CatalogService;
  mcp: McpConnections;
  access: AccessPolicyService;
  usage: UsageExampleService;
  search: Pick<SearchToolsUseCase, 'execute'>;
  planTask: { plan: PlanTaskUseCase['execute'] };
  runTask: Pick<RunTaskUseCase, 'execute'>;
  executePlan: Pick<ExecutePlanUseCase, 'execute'>;
  runEvents: RunEventBus;
  listRuns: Pick<ListRunsUseCase, 'execute'>;
  findRun: Pick<FindRunUseCase, 'execute'>;
  principal: Principal;
  close(): Promise<void>;
}

/** The core without HTTP; logs go to stderr (at warn) so stdout carries only the command's output. */
export async function openCliCore(config: AppConfig, key: string | undefined): Promise<CliCore> {
  fetchLocalModelIfMissing(config.retrieval);
  const level = process.env.LOG_LEVEL ?? 'warn';
  @Module({
    imports: [
      CoreModule.forRoot(
        // One command, then exit: the model loads only if the command embeds something.
        { ...config, gateway: { ...config.gateway, LOG_LEVEL: level as AppConfig['gateway']['LOG_LEVEL'] }, retrieval: { ...config.retrieval, modelLoad: 'first-use' } },
        { logDestination: 2, indexSync: 'on-demand', longLived: false },
      ),
    ],
  })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, BOOT_OPTIONS);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  await app.init();
  const sync = app.get(SyncToolIndexUseCase);
  let synced: Promise<unknown> | undefined;
  const afterSync =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      synced ??= sync.execute();
      await synced;
      return work(...args);
    };
  const search = app.get(SearchToolsUseCase);
  const planTask = app.get(PlanTaskUseCase);
  const runTask = app.get(RunTaskUseCase);
  const executePlan = app.get(ExecutePlanUseCase);
  const access = app.get(AccessPolicyService);
  const principal = commandLinePrincipal(access, key ?? process.env.TOOLGATE_API_KEY);
  new NestLogger('Cli').debug({ principal }, 'acting as');
  return {
    catalog: app.get(CatalogService),
    mcp: app.get(McpConnections),
    access,
    usage: app.get(UsageExampleService),
    search: { execute: afterSync(search.execute.bind(search)) },
    planTask: { plan: afterSync(planTask.execute.bind(planTask)) },
    runTask: { execute: afterSync(runTask.execute.bind(runTask)) },
    executePlan: { execute: executePlan.execute.bind(executePlan) },
    runEvents: app.get(RunEventBus),
    listRuns: app.get(ListRunsUseCase),
    findRun: app.get(FindRunUseCase),
    principal,
    close: () => app.close(),
  };
}
