import { Injectable } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import type { Run, RunListFilter } from '@toolgate/sdk';

/** Runs of the caller's tenant (of one subject with `subject`), newest first. */
@Injectable()
export class ListRunsUseCase {
  constructor(private readonly store: RunStore) {}

  execute(principal: Principal, filter: Omit<RunListFilter, 'tenant'>): Promise<Run[]> {
    return this.store.list({ tenant: principal.tenant, subject: filter.subject, status: filter.status, limit: filter.limit });
  }
}
