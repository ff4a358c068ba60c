import { Injectable } from '@nestjs/common';
import type { Principal } from '@toolgate/registry';
import type { Run } from '@toolgate/sdk';
import { RunVisibility } from './run-visibility.service';

/** A run of the caller's tenant; null for one that does not exist or belongs to another tenant. */
@Injectable()
export class FindRunUseCase {
  constructor(private readonly visibility: RunVisibility) {}

  execute(runId: string, principal: Principal): Promise<Run | null> {
    return this.visibility.find(runId, principal);
  }
}
