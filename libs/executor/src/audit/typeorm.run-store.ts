import { Injectable } from '@nestjs/common';
import { RunAuditService } from '@toolgate/registry';
import type { Run, RunEvent, RunListFilter, SequencedRunEvent } from '@toolgate/sdk';
import { RunEventBus } from './run-event.bus';
import { RunStore } from './run-store.port';

/**
 * RunStore on the catalog database (SQLite or PostgreSQL) through the registry's audit tables. It is an
 * adapter rather than the registry's service itself because an event is published on the bus, which the
 * registry may not know, only once it is committed.
 */
@Injectable()
export class TypeormRunStore extends RunStore {
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

  list(filter: RunListFilter): Promise<Run[]> {
    return this.audit.list(filter);
  }

  events(runId: string, afterSeq?: number): Promise<SequencedRunEvent[]> {
    return this.audit.events(runId, afterSeq);
  }
}
