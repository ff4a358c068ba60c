import { Args, Query, Resolver } from '@nestjs/graphql';
import type { Principal } from '@toolgate/registry';
import { CurrentPrincipal } from '../auth/principal.guard';
import { planningCost } from '../graphql/operation.costs';
import { PlanTaskUseCase } from '../use-cases/plan-task.use-case';
import { SelectToolsUseCase } from '../use-cases/select-tools.use-case';
import { Plan, Selection } from './plan.model';
import { TaskInput, toPlannerTask } from './task.inputs';

@Resolver()
export class PlanningResolver {
  constructor(
    private readonly selectToolsUseCase: SelectToolsUseCase,
    private readonly planTaskUseCase: PlanTaskUseCase,
  ) {}

  @Query(() => Selection, { complexity: planningCost, description: 'Which of the tools the caller may use fit the task, with arguments; nothing runs.' })
  async selectTools(@CurrentPrincipal() principal: Principal, @Args('task') task: TaskInput): Promise<Selection> {
    const { result, images } = await this.selectToolsUseCase.execute(toPlannerTask(task), principal);
    return Selection.from(result, images);
  }

  @Query(() => Plan, { complexity: planningCost, description: 'A DAG of tool calls for the task over the tools the caller may use; nothing runs.' })
  async plan(@CurrentPrincipal() principal: Principal, @Args('task') task: TaskInput): Promise<Plan> {
    const { result, candidates, images } = await this.planTaskUseCase.execute(toPlannerTask(task), principal);
    return Plan.from(result, candidates, images);
  }
}
