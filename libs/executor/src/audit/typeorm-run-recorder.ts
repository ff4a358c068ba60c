import { Injectable } from '@nestjs/common';
import { RunAuditService } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Run } from '../run/run.types';
import type { RunEvent, RunFilter } from './run-event.types';
import { RunEventBus } from './run-event-bus';
import { RunRecorder } from './run-recorder.port';

/**
 * RunRecorder on the catalog database (SQLite or PostgreSQL) through the registry's audit tables.
 * An event is published on the bus only once it is committed.
 */
@Injectable()
export class TypeormRunRecorder extends RunRecorder {
  constructor(
    private readonly audit: RunAuditService,
    private readonly bus: RunEventBus,
  ) {
    super();
  }

  async record(event: RunEvent): Promise<void> {
    const seq = await this.audit.append(event);
    this.bus.publish(seq, event);
  }

  load(runId: string): Promise<Run | null> {
    return this.audit.load(runId);
  }

  /** Runs are listed per owner: a filter without one would cross tenants. */
  async list(filter: RunFilter): Promise<Run[]> {
    if (!filter.owner) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'runs are listed per owner: the filter needs one', [{ path: '/filter/owner', message: 'required' }]);
    return this.audit.list({ tenant: filter.owner.tenant, subject: filter.owner.subject, status: filter.status, limit: filter.limit });
  }

  async events(runId: string): Promise<RunEvent[]> {
    return (await this.audit.events(runId)).map((e) => e.event);
  }
}
