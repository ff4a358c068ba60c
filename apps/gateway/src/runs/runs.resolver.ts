import { randomUUID } from 'node:crypto';
import { Args, ID, Mutation, Query, Resolver, Subscription } from '@nestjs/graphql';
import type { Principal } from '@toolgate/registry';
import { map } from 'rxjs';
import { CurrentPrincipal } from '../auth/principal.guard';
import { TaskInput, toPlannerTask } from '../planning/task.inputs';
import { ExecutePlanUseCase } from '../use-cases/execute-plan.use-case';
import { RunTaskUseCase } from '../use-cases/run-task.use-case';
import { asyncIteratorOf } from './async-iterator';
import { PlanInput, RunFilterInput, toPlan } from './run.inputs';
import { Run, RunEvent } from './run.model';
import { RunAccessService } from './run-access.service';

@Resolver(() => Run)
export class RunsResolver {
  constructor(
    private readonly runTaskUseCase: RunTaskUseCase,
    private readonly executePlanUseCase: ExecutePlanUseCase,
    private readonly access: RunAccessService,
  ) {}

  @Mutation(() => Run, { description: 'Plans the task over the tools the caller may use and runs the plan; returns when it finishes or waits for an approval.' })
  async runTask(@CurrentPrincipal() principal: Principal, @Args('task') task: TaskInput): Promise<Run> {
    return Run.from(await this.runTaskUseCase.execute(toPlannerTask(task), principal));
  }

  @Mutation(() => Run, { description: "Runs the caller's own plan, validated exactly like a planned one." })
  async executePlan(@CurrentPrincipal() principal: Principal, @Args('plan') plan: PlanInput): Promise<Run> {
    return Run.from(await this.executePlanUseCase.execute(toPlan(plan, randomUUID()), principal));
  }

  @Mutation(() => Run, { description: 'Lets a step waiting for approval run; returns when the run finishes or waits again.' })
  async approveStep(
    @CurrentPrincipal() principal: Principal,
    @Args('runId', { type: () => ID }) runId: string,
    @Args('stepId') stepId: string,
    @Args('comment', { nullable: true }) comment?: string,
  ): Promise<Run> {
    return Run.from(await this.access.decide(runId, stepId, true, principal, comment));
  }

  @Mutation(() => Run, { description: 'Refuses a step waiting for approval: it ends CANCELLED and its dependents SKIPPED.' })
  async rejectStep(
    @CurrentPrincipal() principal: Principal,
    @Args('runId', { type: () => ID }) runId: string,
    @Args('stepId') stepId: string,
    @Args('comment', { nullable: true }) comment?: string,
  ): Promise<Run> {
    return Run.from(await this.access.decide(runId, stepId, false, principal, comment));
  }

  @Mutation(() => Run, { description: 'Cancels a run in progress or waiting for approval: running calls are aborted, the rest end CANCELLED.' })
  async cancelRun(@CurrentPrincipal() principal: Principal, @Args('runId', { type: () => ID }) runId: string): Promise<Run> {
    return Run.from(await this.access.cancel(runId, principal));
  }

  @Query(() => Run, { nullable: true, description: "A run of the caller's tenant; null for one that does not exist or belongs to another tenant." })
  async run(@CurrentPrincipal() principal: Principal, @Args('id', { type: () => ID }) id: string): Promise<Run | null> {
    const run = await this.access.find(id, principal);
    return run && Run.from(run);
  }

  @Query(() => [Run], { description: "Runs of the caller's tenant, newest first." })
  async runs(@CurrentPrincipal() principal: Principal, @Args('filter', { nullable: true }) filter?: RunFilterInput): Promise<Run[]> {
    return (await this.access.list(principal, filter ?? {})).map(Run.from);
  }

  @Subscription(() => RunEvent, {
    description: "A run's events in order: those recorded so far, then live ones; ends after RUN_FINISHED. Over graphql-ws, with the API key in connectionParams.authorization.",
    resolve: (event: RunEvent) => event,
  })
  async runEvents(@CurrentPrincipal() principal: Principal, @Args('runId', { type: () => ID }) runId: string): Promise<AsyncIterableIterator<RunEvent>> {
    const events = await this.access.events(runId, principal);
    return asyncIteratorOf(events.pipe(map((event) => RunEvent.from(runId, event))));
  }
}
