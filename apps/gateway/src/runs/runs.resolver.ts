import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Args, ID, Mutation, Parent, Query, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import type { Principal } from '@toolgate/registry';
import { map } from 'rxjs';
import { CurrentPrincipal } from '../auth/principal.guard';
import { APP_CONFIG, type AppConfig } from '../config/app.config';
import { executePlanCost, listRunsCost, resumeRunCost, runTaskCost } from '../graphql/operation.costs';
import { TaskInput, toPlannerTask } from '../planning/task.inputs';
import { CancelRunUseCase } from '../use-cases/cancel-run.use-case';
import { DecideStepUseCase } from '../use-cases/decide-step.use-case';
import { ExecutePlanUseCase } from '../use-cases/execute-plan.use-case';
import { FindRunUseCase } from '../use-cases/find-run.use-case';
import { ListRunsUseCase } from '../use-cases/list-runs.use-case';
import { RunTaskUseCase } from '../use-cases/run-task.use-case';
import { WatchRunUseCase } from '../use-cases/watch-run.use-case';
import { asyncIteratorOf } from './async-iterator.adapter';
import { PlanInput, RunFilterInput, toPlan } from './run.inputs';
import { Run, RunEvent } from './run.model';

@Resolver(() => Run)
export class RunsResolver {
  constructor(
    private readonly runTaskUseCase: RunTaskUseCase,
    private readonly executePlanUseCase: ExecutePlanUseCase,
    private readonly decideStep: DecideStepUseCase,
    private readonly cancelRunUseCase: CancelRunUseCase,
    private readonly findRun: FindRunUseCase,
    private readonly listRuns: ListRunsUseCase,
    private readonly watchRun: WatchRunUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ResolveField(() => String, { nullable: true, description: "Where the run's trace opens (TOOLGATE_TRACE_URL with its trace id); null when that is not configured." })
  traceUrl(@Parent() run: Run): string | null {
    const template = this.config.gateway.TOOLGATE_TRACE_URL;
    return template ? template.replaceAll('{traceId}', encodeURIComponent(run.traceId)) : null;
  }

  @Mutation(() => Run, { complexity: runTaskCost, description: 'Plans the task over the tools the caller may use and runs the plan; returns when it finishes or waits for an approval.' })
  async runTask(@CurrentPrincipal() principal: Principal, @Args('task') task: TaskInput): Promise<Run> {
    return Run.from(await this.runTaskUseCase.execute(toPlannerTask(task), principal));
  }

  @Mutation(() => Run, { complexity: executePlanCost, description: "Runs the caller's own plan, validated exactly like a planned one." })
  async executePlan(@CurrentPrincipal() principal: Principal, @Args('plan') plan: PlanInput): Promise<Run> {
    return Run.from(await this.executePlanUseCase.execute(toPlan(plan, randomUUID()), principal));
  }

  @Mutation(() => Run, { complexity: resumeRunCost, description: 'Lets a step waiting for approval run; returns when the run finishes or waits again.' })
  async approveStep(
    @CurrentPrincipal() principal: Principal,
    @Args('runId', { type: () => ID }) runId: string,
    @Args('stepId') stepId: string,
    @Args('comment', { nullable: true }) comment?: string,
  ): Promise<Run> {
    return Run.from(await this.decideStep.execute({ runId, stepId, approved: true, comment }, principal));
  }

  @Mutation(() => Run, { description: 'Refuses a step waiting for approval: it ends CANCELLED and its dependents SKIPPED.' })
  async rejectStep(
    @CurrentPrincipal() principal: Principal,
    @Args('runId', { type: () => ID }) runId: string,
    @Args('stepId') stepId: string,
    @Args('comment', { nullable: true }) comment?: string,
  ): Promise<Run> {
    return Run.from(await this.decideStep.execute({ runId, stepId, approved: false, comment }, principal));
  }

  @Mutation(() => Run, { description: 'Cancels a run in progress or waiting for approval: running calls are aborted, the rest end CANCELLED.' })
  async cancelRun(@CurrentPrincipal() principal: Principal, @Args('runId', { type: () => ID }) runId: string): Promise<Run> {
    return Run.from(await this.cancelRunUseCase.execute(runId, principal));
  }

  @Query(() => Run, { nullable: true, description: "A run of the caller's tenant; null for one that does not exist or belongs to another tenant." })
  async run(@CurrentPrincipal() principal: Principal, @Args('id', { type: () => ID }) id: string): Promise<Run | null> {
    const run = await this.findRun.execute(id, principal);
    return run && Run.from(run);
  }

  @Query(() => [Run], { complexity: listRunsCost, description: "Runs of the caller's tenant, newest first; steps come without outputs (`run(id)` has them)." })
  async runs(@CurrentPrincipal() principal: Principal, @Args('filter', { nullable: true }) filter?: RunFilterInput): Promise<Run[]> {
    return (await this.listRuns.execute(principal, filter ?? {})).map(Run.from);
  }

  @Subscription(() => RunEvent, {
    description: "A run's events in order: those recorded so far, then live ones; ends after RUN_FINISHED. Over graphql-ws, with the API key in connectionParams.authorization.",
    resolve: (event: RunEvent) => event,
  })
  async runEvents(@CurrentPrincipal() principal: Principal, @Args('runId', { type: () => ID }) runId: string): Promise<AsyncIterableIterator<RunEvent>> {
    const events = await this.watchRun.execute(runId, principal);
    return asyncIteratorOf(events.pipe(map((event) => RunEvent.from(runId, event))));
  }
}
