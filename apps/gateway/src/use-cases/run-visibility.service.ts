import { Injectable } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import { ErrorCode, type Run, ToolgateError } from '@toolgate/sdk';

/**
 * Runs are visible within their tenant only: another tenant's run answers exactly like a missing one.
 * Who may approve or cancel a visible run is the runner's rule.
 */
@Injectable()
export class RunVisibility {
  constructor(private readonly store: RunStore) {}

  async find(runId: string, principal: Principal): Promise<Run | null> {
    const run = await this.store.load(runId);
    return run && run.owner.tenant === principal.tenant ? run : null;
  }

  /** The run, or the same INVALID_ARGUMENTS as for a run that does not exist. */
  async require(runId: string, principal: Principal): Promise<Run> {
    const run = await this.find(runId, principal);
    if (!run) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId}`, [{ path: '/runId', message: 'no such run' }]);
    return run;
  }
}
