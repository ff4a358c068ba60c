import { Injectable } from '@nestjs/common';
import { Planner, type Selection, type TaskInput } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import { PlanningContext, type PlanTaskResult } from './planning-context.service';

/** Task → which of the candidates the caller may discover fit it, with arguments; nothing runs. */
@Injectable()
export class SelectToolsUseCase {
  constructor(
    private readonly context: PlanningContext,
    private readonly planner: Planner,
  ) {}

  execute(task: TaskInput, principal: Principal): Promise<PlanTaskResult<Selection>> {
    return this.context.decide('select', task, principal, ({ task: input, candidates, followUp }) =>
      followUp ? Promise.resolve({ ...followUp.selection, candidates }) : this.planner.select(input, candidates, principal),
    );
  }
}
