import { Injectable } from '@nestjs/common';
import { PlanRunner } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';
import { RunVisibility } from './run-visibility.service';

/** Cancels a run in progress or waiting for approval: running calls are aborted, the rest end CANCELLED. */
@Injectable()
export class CancelRunUseCase {
  constructor(
    private readonly visibility: RunVisibility,
    private readonly runner: PlanRunner,
  ) {}

  async execute(runId: string, principal: Principal): Promise<Run> {
    await this.visibility.require(runId, principal);
    return this.visibility.view(await this.runner.cancel(runId, principal), principal);
  }
}
