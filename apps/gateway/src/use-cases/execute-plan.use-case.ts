import { Injectable } from '@nestjs/common';
import { type ExecuteOptions, PlanRunner } from '@toolgate/executor';
import type { Plan } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';

/**
 * Runs a plan the caller wrote. The runner validates it exactly like a planned one (tools visible and
 * executable for this caller, arguments against the pinned schemas, bindings, cycles, budgets); with
 * no task behind it, a failed step is not re-planned and no usage example is learned.
 */
@Injectable()
export class ExecutePlanUseCase {
  constructor(private readonly runner: PlanRunner) {}

  /** `runId` lets a transport follow the run's events while it runs (MCP progress). */
  execute(plan: Plan, principal: Principal, options: Pick<ExecuteOptions, 'signal' | 'runId'> = {}): Promise<Run> {
    return this.runner.execute(plan, principal, options);
  }
}
