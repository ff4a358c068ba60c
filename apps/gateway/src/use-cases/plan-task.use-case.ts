import { Injectable } from '@nestjs/common';
import { type Plan, Planner, type TaskInput } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import { PlanningContext, type PlanTaskResult } from './planning-context.service';

/** Task → a DAG of tool calls over the candidates the caller may discover. The planner only proposes: nothing runs here. */
@Injectable()
export class PlanTaskUseCase {
  constructor(
    private readonly context: PlanningContext,
    private readonly planner: Planner,
  ) {}

  execute(task: TaskInput, principal: Principal): Promise<PlanTaskResult<Plan>> {
    return this.context.decide('plan', task, principal, ({ task: input, candidates, followUp }) => (followUp ? Promise.resolve(followUp.plan) : this.planner.plan(input, candidates, principal)));
  }
}
