import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { DataSource, LessThan } from 'typeorm';
import { PlanningSessionEntity } from '../persistence/planning-session.entity';
import { transaction } from '../persistence/transaction.queue';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../registry.module-definition';

/** Session ids are chosen by callers: short, printable, no separators that could confuse logs or keys. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export interface SessionOwner {
  tenant: string;
  subject: string;
}

export function sessionIdProblem(sessionId: string): string | null {
  return SESSION_ID_PATTERN.test(sessionId) ? null : 'must be 1-128 characters: letters, digits, "_", ".", ":" or "-", starting with a letter or digit';
}

/**
 * Conversation state by (tenant, subject, session id): a session is visible only to the caller that
 * wrote it. The state is opaque JSON here (the planner shapes and bounds it); the store bounds its
 * size and forgets sessions idle past the TTL.
 */
@Injectable()
export class SessionStoreService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions,
  ) {}

  private get limits() {
    return this.options.sessions ?? { maxBytes: 64 * 1024, ttlMs: 7 * 24 * 3600 * 1000 };
  }

  async load<T>(owner: SessionOwner, sessionId: string): Promise<T | null> {
    this.check(sessionId);
    const row = await this.dataSource.getRepository(PlanningSessionEntity).findOneBy({ tenant: owner.tenant, subject: owner.subject, sessionId });
    if (!row || row.updatedAt < Date.now() - this.limits.ttlMs) return null;
    return JSON.parse(row.state) as T;
  }

  /** Replaces the session's state; a state over the size bound is refused and the stored one kept. */
  async save(owner: SessionOwner, sessionId: string, state: unknown): Promise<void> {
    this.check(sessionId);
    const json = JSON.stringify(state);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.maxBytes) {
      throw new ToolgateError(ErrorCode.BUDGET_EXCEEDED, `session state of ${bytes} bytes exceeds the ${this.limits.maxBytes}-byte bound`, [{ path: '/sessionId', message: 'state too large' }]);
    }
    const now = Date.now();
    await transaction(this.dataSource, async (tx) => {
      const repo = tx.getRepository(PlanningSessionEntity);
      await repo.delete({ updatedAt: LessThan(now - this.limits.ttlMs) });
      const existing = await repo.findOneBy({ tenant: owner.tenant, subject: owner.subject, sessionId });
      if (existing) await repo.update({ id: existing.id }, { state: json, updatedAt: now });
      else await repo.insert(repo.create({ tenant: owner.tenant, subject: owner.subject, sessionId, state: json, updatedAt: now }));
    });
  }

  async forget(owner: SessionOwner, sessionId: string): Promise<boolean> {
    this.check(sessionId);
    const result = await this.dataSource.getRepository(PlanningSessionEntity).delete({ tenant: owner.tenant, subject: owner.subject, sessionId });
    return (result.affected ?? 0) > 0;
  }

  private check(sessionId: string): void {
    const problem = sessionIdProblem(sessionId);
    if (problem) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `invalid sessionId: ${problem}`, [{ path: '/sessionId', message: problem }]);
  }
}
