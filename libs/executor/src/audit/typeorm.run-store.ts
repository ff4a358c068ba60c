import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type PendingApprovals, RunAuditService } from '@toolgate/registry';
import type { Run, RunEvent, RunListFilter, SequencedRunEvent } from '@toolgate/sdk';
import { RunEventBus } from './run-event.bus';
import { type ClaimedRun, type ResumePoint, RunStore } from './run-store.port';

/**
 * RunStore on the catalog database (SQLite or PostgreSQL) through the registry's audit tables. It is an
 * adapter rather than the registry's service itself because an event is published on the bus, which the
 * registry may not know, only once it is committed.
 */
@Injectable()
export class TypeormRunStore extends RunStore {
  readonly instance = randomUUID();

  constructor(
    private readonly audit: RunAuditService,
    private readonly bus: RunEventBus,
  ) {
    super();
  }

  async record(event: RunEvent, resume?: ResumePoint): Promise<void> {
    const seq = await this.audit.append(event, { ...(event.type === 'RUN_STARTED' ? { owner: this.instance } : {}), ...(resume ? { resume } : {}) });
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

  async resumePoint(runId: string): Promise<ResumePoint | null> {
    return ((await this.audit.resumePoint(runId)) as ResumePoint | null) ?? null;
  }

  heartbeat(): Promise<void> {
    return this.audit.heartbeat(this.instance);
  }

  async claimOrphans(staleBefore: number, options: { runId?: string; limit?: number } = {}): Promise<ClaimedRun[]> {
    const claimed: ClaimedRun[] = [];
    for (const orphan of await this.audit.orphans(this.instance, staleBefore, options)) {
      if (await this.audit.claim(orphan, this.instance)) claimed.push({ id: orphan.id, status: orphan.status });
    }
    return claimed;
  }

  release(runIds: string[]): Promise<void> {
    return this.audit.release(this.instance, runIds);
  }

  pendingApprovals(): Promise<PendingApprovals[]> {
    return this.audit.pendingApprovals();
  }

  removeFinished(before: number): Promise<number> {
    return this.audit.removeFinished(before);
  }
}
