import { Injectable } from '@nestjs/common';
import type { Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';
import { RunVisibility } from './run-visibility.service';

/** A run of the caller's tenant as it may see it (outputs withheld per step); null for one that does not exist or belongs to another tenant. */
@Injectable()
export class FindRunUseCase {
  constructor(private readonly visibility: RunVisibility) {}

  async execute(runId: string, principal: Principal): Promise<Run | null> {
    const run = await this.visibility.find(runId, principal);
    return run && this.visibility.view(run, principal);
  }
}
