import { Injectable } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import type { Run, RunListFilter } from '@toolgate/sdk';
import { RunVisibility } from './run-visibility.service';

/** Runs of the caller's tenant (of one subject with `subject`), newest first, as the caller may see them (outputs withheld per step). */
@Injectable()
export class ListRunsUseCase {
  constructor(
    private readonly store: RunStore,
    private readonly visibility: RunVisibility,
  ) {}

  async execute(principal: Principal, filter: Omit<RunListFilter, 'tenant'>): Promise<Run[]> {
    const runs = await this.store.list({ tenant: principal.tenant, subject: filter.subject, status: filter.status, limit: filter.limit });
    return runs.map((run) => this.visibility.view(run, principal));
  }
}
