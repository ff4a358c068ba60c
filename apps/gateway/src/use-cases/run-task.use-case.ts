import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type ExecuteOptions, PlanRunner } from '@toolgate/executor';
import { Planner, type TaskInput } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';
import { PlanTaskUseCase } from './plan-task.use-case';
import { RunLearningSubscriber } from './run-learning.subscriber';

/**
 * Task → plan (the PlanTask use case: images, candidates within the caller's grants, sessions) → run.
 * A plan that is not USE_TOOLS is refused by the runner's plan validator, with the planner's reason.
 * Failed steps are repaired by the same planner over the same candidates. What the run teaches
 * (usage examples, the tool graph) is learned from its events by RunLearningSubscriber.
 */
@Injectable()
export class RunTaskUseCase {
  constructor(
    private readonly planTask: PlanTaskUseCase,
    private readonly planner: Planner,
    private readonly runner: PlanRunner,
    private readonly learning: RunLearningSubscriber,
  ) {}

  /** `runId` lets a transport follow the run's events while it runs (MCP progress). */
  async execute(task: TaskInput, principal: Principal, options: Pick<ExecuteOptions, 'signal' | 'runId'> = {}): Promise<Run> {
    const { result: plan, candidates } = await this.planTask.execute(task, principal);
    const runId = options.runId ?? randomUUID();
    const run = await this.runner.execute(plan, principal, { ...options, runId, task, candidates, replan: (failed, feedback) => this.planner.replan(failed, feedback) }).catch((error: unknown) => {
      this.learning.forget(runId);
      throw error;
    });
    // What the run taught is stored before its caller hears back (who may search or read examples at once).
    await this.learning.settled(runId);
    return run;
  }
}
