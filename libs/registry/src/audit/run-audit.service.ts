import { Injectable, Optional } from '@nestjs/common';
import { type Run, type RunEvent, type RunListFilter, type RunStep, runIdOf, type SequencedRunEvent, type StepApproval, type StepAttempt, type StepError } from '@toolgate/sdk';
import { Brackets, DataSource, type FindOptionsSelect, In, IsNull, LessThan, MoreThan } from 'typeorm';
import { ApprovalEntity } from '../persistence/approval.entity';
import { CHANGE_CHANNELS, DatabaseChanges } from '../persistence/database.changes';
import { RunEntity } from '../persistence/run.entity';
import { RunEventEntity } from '../persistence/run-event.entity';
import { RunStepEntity } from '../persistence/run-step.entity';
import { StepAttemptEntity } from '../persistence/step-attempt.entity';
import { transaction } from '../persistence/transaction.queue';
import { type AppendContext, eventStatements, invalid } from './run-event.statements';
import { StatementRunner, type Statements } from './statement.runner';

export type { AppendContext } from './run-event.statements';

export const DEFAULT_RUN_LIST_LIMIT = 50;
/** Runs removed per transaction by `removeFinished` (a sweep never holds the database for long). */
export const RETENTION_BATCH = 200;
export const MAX_RUN_LIST_LIMIT = 500;

const iso = (millis: number): string => new Date(millis).toISOString();
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function stepOf(row: RunStepEntity): RunStep {
  return {
    id: row.stepId,
    tool: row.tool,
    status: row.status,
    attempts: row.attempts,
    // A listing does not select the output (undefined); a step without one has null.
    ...(typeof row.output === 'string' ? { output: JSON.parse(row.output) } : {}),
    ...(row.error !== null ? { error: JSON.parse(row.error) as StepError } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.fallbackOf !== null ? { fallbackOf: row.fallbackOf } : {}),
    dependsOn: JSON.parse(row.dependsOn) as string[],
    startedAt: row.startedAt === null ? null : iso(row.startedAt),
    durationMs: row.durationMs,
  };
}

/** A run as a process holding it sees it: who holds it, since when it said so. */
export interface RunOwnership {
  id: string;
  status: Run['status'];
  ownerInstance: string | null;
  heartbeatAt: number | null;
}

const FINAL: Run['status'][] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
const IN_PROGRESS: Run['status'][] = ['RUNNING', 'PENDING_APPROVAL'];

/** Every column of a run but its resume point (read only when resuming). */
export interface PendingApprovals {
  tenant: string;
  pending: number;
  oldestRequestedAt: number;
}

const RUN_COLUMNS: FindOptionsSelect<RunEntity> = {
  id: true,
  planId: true,
  tenant: true,
  subject: true,
  status: true,
  traceId: true,
  task: true,
  replans: true,
  reason: true,
  lastSeq: true,
  startedAt: true,
  finishedAt: true,
};

/** Every column of a step but its output: what a listing reads. */
const STEP_COLUMNS_WITHOUT_OUTPUT: FindOptionsSelect<RunStepEntity> = {
  runId: true,
  stepId: true,
  position: true,
  tool: true,
  status: true,
  attempts: true,
  error: true,
  reason: true,
  fallbackOf: true,
  dependsOn: true,
  startedAt: true,
  durationMs: true,
};

function runOf(row: RunEntity, steps: RunStepEntity[]): Run {
  return {
    id: row.id,
    status: row.status,
    traceId: row.traceId,
    planId: row.planId,
    owner: { tenant: row.tenant, subject: row.subject },
    ...(row.task !== null ? { task: row.task } : {}),
    steps: steps.map(stepOf),
    replans: row.replans,
    ...(row.reason !== null ? { reason: row.reason } : {}),
    startedAt: iso(row.startedAt),
    finishedAt: row.finishedAt === null ? null : iso(row.finishedAt),
  };
}

/**
 * The audit trail of runs on the catalog database. Events are appended, numbered 1, 2, 3, ... per run,
 * in one transaction with the rows they change (run, steps, attempts, approvals), so the current state
 * of a run is one read and always agrees with its events.
 */
@Injectable()
export class RunAuditService {
  /** Appends waiting for the one before them: per run on PostgreSQL, for all runs on SQLite (one connection, one transaction at a time). */
  private readonly queues = new Map<string, Promise<unknown>>();

  private readonly postgres: boolean;
  private readonly statements: StatementRunner;

  constructor(
    private readonly dataSource: DataSource,
    /** On PostgreSQL, each event's notice to the other replicas goes out with its transaction. */
    @Optional() private readonly changes?: DatabaseChanges,
  ) {
    this.postgres = dataSource.options.type === 'postgres';
    this.statements = new StatementRunner(dataSource);
  }

  /**
   * Persists one event and applies it; returns its sequence number in its run. `context.owner` (with
   * RUN_STARTED) names the process taking the run; `context.resume` replaces the run's resume point.
   */
  append(event: RunEvent, context: AppendContext = {}): Promise<number> {
    const runId = runIdOf(event);
    return this.serialized(this.queueOf(runId), () => this.statements.run(this.noticed(runId, eventStatements(runId, event, context))));
  }

  /** The event's statements, then (PostgreSQL) its notice, delivered by the database only when the transaction commits. */
  private *noticed(runId: string, steps: Statements<number>): Statements<number> {
    const seq = yield* steps;
    if (this.postgres && this.changes) yield { text: 'SELECT pg_notify(?, ?)', parameters: [CHANGE_CHANNELS.runEvents, this.changes.runEventPayload(runId, seq)] };
    return seq;
  }

  /** The resume point last stored with the run (the executor's shape), or null. */
  async resumePoint(runId: string): Promise<unknown> {
    const row = await this.dataSource.getRepository(RunEntity).findOne({ select: { id: true, resume: true }, where: { id: runId } });
    return parsed(row?.resume ?? null);
  }

  /** The owner says it is alive: the heartbeat of every run in progress it holds. */
  async heartbeat(instance: string, at = Date.now()): Promise<void> {
    await this.serialized(this.queueOf('*'), () => this.dataSource.getRepository(RunEntity).update({ ownerInstance: instance, status: In(IN_PROGRESS) }, { heartbeatAt: at }));
  }

  /**
   * Runs no live process holds (no owner, or an owner silent since before `staleBefore`; never
   * `instance`'s own): those RUNNING, for crash recovery; with `runId`, that run also when it waits for
   * approval (nobody holds a paused run: whoever gets the decision takes it).
   */
  async orphans(instance: string, staleBefore: number, { limit = 100, runId }: { limit?: number; runId?: string } = {}): Promise<RunOwnership[]> {
    const query = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .select(['run.id', 'run.status', 'run.ownerInstance', 'run.heartbeatAt'])
      .where('run.status IN (:...statuses)', { statuses: runId !== undefined ? IN_PROGRESS : ['RUNNING'] });
    if (runId !== undefined) query.andWhere('run.id = :runId', { runId });
    const rows = await query
      .andWhere(new Brackets((q) => q.where('run.ownerInstance IS NULL').orWhere('run.ownerInstance <> :instance', { instance })))
      .andWhere(new Brackets((q) => q.where('run.ownerInstance IS NULL').orWhere('run.heartbeatAt IS NULL').orWhere('run.heartbeatAt < :staleBefore', { staleBefore })))
      .orderBy('run.startedAt', 'ASC')
      .limit(limit)
      .getMany();
    return rows.map((row) => ({ id: row.id, status: row.status, ownerInstance: row.ownerInstance, heartbeatAt: row.heartbeatAt }));
  }

  /** Takes a run over from the owner `seen` says it had; false when someone changed it meanwhile (another process took it, or its owner came back). */
  async claim(seen: RunOwnership, instance: string, at = Date.now()): Promise<boolean> {
    const result = await this.serialized(this.queueOf(seen.id), () =>
      this.dataSource.getRepository(RunEntity).update(
        {
          id: seen.id,
          status: seen.status,
          ownerInstance: seen.ownerInstance === null ? IsNull() : seen.ownerInstance,
          heartbeatAt: seen.heartbeatAt === null ? IsNull() : seen.heartbeatAt,
        },
        { ownerInstance: instance, heartbeatAt: at },
      ),
    );
    return result.affected === 1;
  }

  /** The owner lets its runs go (a shutdown leaving runs paused for approval): the next process takes them at once. */
  async release(instance: string, runIds: string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.serialized(this.queueOf('*'), () => this.dataSource.getRepository(RunEntity).update({ id: In(runIds), ownerInstance: instance }, { ownerInstance: null }));
  }

  /**
   * Retention: removes runs that ended before `before` (epoch ms) with everything recorded for them, in
   * batches of `batch` runs per transaction; never a run in progress or waiting for approval. Returns how many.
   */
  async removeFinished(before: number, batch = RETENTION_BATCH): Promise<number> {
    let removed = 0;
    for (;;) {
      const count = await this.serialized(this.queueOf('*'), () =>
        transaction(this.dataSource, async (tx) => {
          const rows = await tx.getRepository(RunEntity).find({ select: { id: true }, where: { status: In(FINAL), finishedAt: LessThan(before) }, take: batch });
          const ids = rows.map((row) => row.id);
          if (ids.length === 0) return 0;
          for (const entity of [RunEventEntity, StepAttemptEntity, ApprovalEntity, RunStepEntity]) await tx.getRepository(entity).delete({ runId: In(ids) });
          await tx.getRepository(RunEntity).delete({ id: In(ids) });
          return ids.length;
        }),
      );
      removed += count;
      if (count < batch) return removed;
    }
  }

  /** Writes to one run wait for each other on PostgreSQL; on SQLite every write waits for the one before (one connection, one transaction at a time). */
  private queueOf(runId: string): string {
    return this.postgres ? runId : '*';
  }

  async load(runId: string): Promise<Run | null> {
    const row = await this.dataSource.getRepository(RunEntity).findOne({ select: RUN_COLUMNS, where: { id: runId } });
    if (!row) return null;
    const steps = await this.dataSource.getRepository(RunStepEntity).find({ where: { runId }, order: { position: 'ASC' } });
    return runOf(row, steps);
  }

  /** Runs of one tenant (and subject, when given), newest first; without outputs (`load` has them), so a listing reads no more than its rows. */
  async list(filter: RunListFilter): Promise<Run[]> {
    // A filter without a tenant would match every tenant's runs (TypeORM drops undefined conditions).
    if (typeof filter.tenant !== 'string') throw invalid('runs are listed per tenant: the filter needs one', '/filter/tenant');
    const limit = filter.limit ?? DEFAULT_RUN_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_LIST_LIMIT) throw invalid(`limit must be an integer from 1 to ${MAX_RUN_LIST_LIMIT}`, '/filter/limit');
    const rows = await this.dataSource.getRepository(RunEntity).find({
      select: RUN_COLUMNS,
      where: { tenant: filter.tenant, ...(filter.subject !== undefined ? { subject: filter.subject } : {}), ...(filter.status ? { status: filter.status } : {}) },
      order: { startedAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    if (rows.length === 0) return [];
    const steps = await this.dataSource
      .getRepository(RunStepEntity)
      .find({ select: STEP_COLUMNS_WITHOUT_OUTPUT, where: { runId: In(rows.map((r) => r.id)) }, order: { runId: 'ASC', position: 'ASC' } });
    return rows.map((row) =>
      runOf(
        row,
        steps.filter((s) => s.runId === row.id),
      ),
    );
  }

  /** The run's events in order; with `afterSeq`, only those after it. */
  async events(runId: string, afterSeq = 0): Promise<SequencedRunEvent[]> {
    const rows = await this.dataSource.getRepository(RunEventEntity).find({ where: { runId, seq: MoreThan(afterSeq) }, order: { seq: 'ASC' } });
    const events = rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.payload) as RunEvent }));
    return this.withOutputs(runId, events);
  }

  /** Puts each step's stored output back on the events that carried it (see `storedPayload`). */
  private async withOutputs(runId: string, events: SequencedRunEvent[]): Promise<SequencedRunEvent[]> {
    if (!events.some(({ event }) => event.type === 'STEP_FINISHED' || event.type === 'RUN_FINISHED')) return events;
    const rows = await this.dataSource.getRepository(RunStepEntity).find({ select: { stepId: true, output: true }, where: { runId } });
    const outputs = new Map(rows.filter((row) => row.output !== null).map((row) => [row.stepId, row.output as string]));
    const hydrate = (step: RunStep): RunStep => (step.output === undefined && outputs.has(step.id) ? { ...step, output: JSON.parse(outputs.get(step.id) as string) } : step);
    return events.map(({ seq, event }) => {
      if (event.type === 'STEP_FINISHED') return { seq, event: { ...event, step: hydrate(event.step) } };
      if (event.type === 'RUN_FINISHED') return { seq, event: { ...event, run: { ...event.run, steps: event.run.steps.map(hydrate) } } };
      return { seq, event };
    });
  }

  /** Every attempt of every step of the run, in the order they were reported. */
  async attempts(runId: string): Promise<StepAttempt[]> {
    const rows = await this.dataSource.getRepository(StepAttemptEntity).find({ where: { runId }, order: { seq: 'ASC' } });
    return rows.map((row) => ({
      seq: row.seq,
      stepId: row.stepId,
      tool: row.tool,
      attempt: row.attempt,
      outcome: row.outcome,
      error: parsed<StepError>(row.error),
      durationMs: row.durationMs,
      at: iso(row.at),
      codeHash: row.codeHash,
    }));
  }

  async approvals(runId: string): Promise<StepApproval[]> {
    const rows = await this.dataSource.getRepository(ApprovalEntity).find({ where: { runId }, order: { requestedAt: 'ASC', stepId: 'ASC' } });
    return rows.map((row) => ({
      stepId: row.stepId,
      tool: row.tool,
      reason: row.reason,
      status: row.status,
      requestedAt: iso(row.requestedAt),
      decidedAt: row.decidedAt === null ? null : iso(row.decidedAt),
      decidedBy: row.decidedByTenant === null || row.decidedBySubject === null ? null : { tenant: row.decidedByTenant, subject: row.decidedBySubject },
      comment: row.comment,
    }));
  }

  /** Steps waiting for a person, per tenant of their run: how many, and since when the oldest waits (epoch ms). */
  async pendingApprovals(): Promise<PendingApprovals[]> {
    const rows = await this.dataSource
      .getRepository(ApprovalEntity)
      .createQueryBuilder('approval')
      .innerJoin(RunEntity, 'run', 'run.id = approval.runId')
      .select('run.tenant', 'tenant')
      .addSelect('COUNT(*)', 'pending')
      .addSelect('MIN(approval.requestedAt)', 'oldest')
      .where('approval.status = :status', { status: 'PENDING' })
      .groupBy('run.tenant')
      .getRawMany<{ tenant: string; pending: number | string; oldest: number | string }>();
    return rows.map((row) => ({ tenant: row.tenant, pending: Number(row.pending), oldestRequestedAt: Number(row.oldest) }));
  }

  private serialized<T>(queue: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(queue);
    // better-sqlite3 answers synchronously, so queued transactions would run back to back as one chain
    // of microtasks and starve timers and I/O (tool timeouts fire late, clean calls time out): a write
    // queued behind another first yields to the event loop. One with none before it goes at once.
    const result = before ? before.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work) : Promise.resolve().then(work);
    const tail = result.catch(() => undefined);
    this.queues.set(queue, tail);
    void tail.then(() => {
      if (this.queues.get(queue) === tail) this.queues.delete(queue);
    });
    return result;
  }
}
