import { Module } from '@nestjs/common';
import { ExecutorConfigurableModule } from './executor.module-definition';
import { PlanRunner } from './scheduling/plan.runner';
import { PlanValidator } from './validation/plan.validator';
import { SchemaCache } from './validation/schema.cache';

/**
 * Plan validation and the plan runner. Needs the registry (CatalogService, AccessPolicyService: import
 * `RegistryModule.forRoot({..., isGlobal: true})`) and a `RunRecorder` provider (in `providers`, or
 * global). A `ToolInvoker` provider in `providers` replaces the default in-process invoker, e.g.
 * `{ provide: ToolInvoker, useFactory: (inner) => new ResilientToolInvoker(inner, ...), inject: [...] }`.
 *
 * ```ts
 * ExecutorModule.forRoot({ maxParallel: 4, deadlineMs: 60_000, providers: [{ provide: RunRecorder, useClass: TypeOrmRunRecorder }] })
 * ```
 */
@Module({
  providers: [SchemaCache, PlanValidator, PlanRunner],
  exports: [PlanValidator, PlanRunner],
})
export class ExecutorModule extends ExecutorConfigurableModule {}
