import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type ExecuteOptions, PlanRunner, type Run, RunEventBus } from '@toolgate/executor';
import { type Plan, Planner, type TaskInput, ToolGraph } from '@toolgate/planner';
import { CatalogService, type Principal, UsageExampleService } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { filter, first, type Subscription } from 'rxjs';
import { PlanTaskUseCase } from './plan-task.use-case';

/** A plan that cannot run says why, in the planner's words, as a typed error. */
function refuseUnexecutable(plan: Plan): void {
  if (plan.decision === 'USE_TOOLS') return;
  if (plan.decision === 'CLARIFY') {
    throw new ToolgateError(
      ErrorCode.INVALID_ARGUMENTS,
      `the task needs more before it can run: ${plan.question ?? 'some required arguments are missing'}`,
      (plan.missing ?? []).map((m) => ({ path: m.path, message: `${m.tool}${m.step ? ` (step ${m.step})` : ''} needs it${m.description ? `: ${m.description}` : ''}` })),
    );
  }
  if (plan.decision === 'NO_MATCH') throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `no tool you may use fits the task${plan.explanation ? `: ${plan.explanation}` : ''}`);
  throw new ToolgateError(ErrorCode.INVALID_PLAN, `the planner answered without tools, so nothing runs${plan.explanation ? `: ${plan.explanation}` : ''}`, [
    { path: '/decision', message: plan.decision },
  ]);
}

/**
 * Task → plan (the PlanTask use case: images, candidates within the caller's grants, sessions) → run.
 * Failed steps are repaired by the same planner over the same candidates. Each step that succeeds
 * teaches retrieval the task text as a usage example of its tool; the index re-syncs once per run.
 */
@Injectable()
export class RunTaskUseCase implements OnModuleDestroy {
  private readonly learning = new Set<Subscription>();

  constructor(
    private readonly planTask: PlanTaskUseCase,
    private readonly planner: Planner,
    private readonly runner: PlanRunner,
    private readonly bus: RunEventBus,
    private readonly usage: UsageExampleService,
    private readonly catalog: CatalogService,
    private readonly graph: ToolGraph,
  ) {}

  async execute(task: TaskInput, principal: Principal, options: Pick<ExecuteOptions, 'signal'> = {}): Promise<Run> {
    const { result: plan, candidates } = await this.planTask.plan(task, principal);
    refuseUnexecutable(plan);
    const runId = randomUUID();
    const learned = new Set<string>();
    const onFinished = this.bus
      .of(runId)
      .pipe(
        filter(({ event }) => event.type === 'RUN_FINISHED'),
        first(),
      )
      .subscribe({
        next: ({ event }) => {
          if (learned.size > 0) this.catalog.notifyChanged();
          // A successful run teaches the planner's relation graph which tool followed which.
          if (event.type === 'RUN_FINISHED' && event.run.status === 'SUCCEEDED') {
            const order = event.run.steps.filter((step) => step.status === 'SUCCEEDED' && step.startedAt).sort((a, b) => (a.startedAt as string).localeCompare(b.startedAt as string));
            if (order.length > 1) this.graph.observe(order);
          }
        },
        complete: () => this.learning.delete(onFinished),
      });
    this.learning.add(onFinished);
    try {
      return await this.runner.execute(plan, principal, {
        ...options,
        runId,
        task,
        candidates,
        replan: (failed, feedback) => this.planner.replan(failed, feedback),
        onSucceeded: async (toolId, text) => {
          if (await this.usage.record(toolId, text, 'execution')) learned.add(toolId);
        },
      });
    } catch (error) {
      // Refused before it started: no RUN_FINISHED will come.
      onFinished.unsubscribe();
      this.learning.delete(onFinished);
      throw error;
    }
  }

  onModuleDestroy(): void {
    for (const subscription of this.learning) subscription.unsubscribe();
  }
}
