import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type Run,
  type RunEvent,
  type RunListFilter,
  type RunStep,
  runIdOf,
  type SequencedRunEvent,
  type StepApproval,
  type StepAttempt,
  type StepError,
  ToolgateError,
} from '@toolgate/sdk';
import { Brackets, DataSource, type EntityManager, type FindOptionsSelect, In, IsNull, LessThan, MoreThan } from 'typeorm';
import { ApprovalEntity } from '../persistence/approval.entity';
import { RunEntity } from '../persistence/run.entity';
import { RunEventEntity } from '../persistence/run-event.entity';
import { RunStepEntity } from '../persistence/run-step.entity';
import { StepAttemptEntity } from '../persistence/step-attempt.entity';

export const DEFAULT_RUN_LIST_LIMIT = 50;
/** Runs removed per transaction by `removeFinished` (a sweep never holds the database for long). */
export const RETENTION_BATCH = 200;
export const MAX_RUN_LIST_LIMIT = 500;

const iso = (millis: number): string => new Date(millis).toISOString();
const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

const invalid = (message: string, path: string): ToolgateError => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);

function millisOf(instant: string, path: string): number {
  const millis = Date.parse(instant);
  if (Number.isNaN(millis)) throw invalid(`"${instant}" is not an ISO-8601 instant`, path);
  return millis;
}

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

/** What a write may carry besides its event: the process taking the run (RUN_STARTED), a new resume point (any event). */
export interface AppendContext {
  owner?: string;
  resume?: unknown;
}

const FINAL: Run['status'][] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
const IN_PROGRESS: Run['status'][] = ['RUNNING', 'PENDING_APPROVAL'];

/** Every column of a run but its resume point (read only when resuming). */
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

/**
 * The payload kept for an event: outputs of steps are stored once, in `run_steps.output`, and put back
 * on read (`withOutputs`), so STEP_FINISHED and RUN_FINISHED do not store every output twice more.
 */
function storedPayload(event: RunEvent): string {
  if (event.type === 'STEP_FINISHED') return JSON.stringify({ ...event, step: withoutOutput(event.step) });
  if (event.type === 'RUN_FINISHED') return JSON.stringify({ ...event, run: { ...event.run, steps: event.run.steps.map(withoutOutput) } });
  return JSON.stringify(event);
}

function withoutOutput(step: RunStep): RunStep {
  const { output: _output, ...rest } = step;
  return rest;
}

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

/** The step columns a snapshot sets (position and keys aside). */
function stepColumns(step: RunStep): Omit<RunStepEntity, 'runId' | 'stepId' | 'position'> {
  return {
    tool: step.tool,
    status: step.status,
    attempts: step.attempts,
    output: json(step.output),
    error: json(step.error),
    reason: step.reason ?? null,
    fallbackOf: step.fallbackOf ?? null,
    dependsOn: JSON.stringify(step.dependsOn),
    startedAt: step.startedAt === null ? null : millisOf(step.startedAt, '/step/startedAt'),
    durationMs: Math.round(step.durationMs),
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

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Persists one event and applies it; returns its sequence number in its run. `context.owner` (with
   * RUN_STARTED) names the process taking the run; `context.resume` replaces the run's resume point.
   */
  append(event: RunEvent, context: AppendContext = {}): Promise<number> {
    const runId = runIdOf(event);
    return this.serialized(this.queueOf(runId), () => this.dataSource.transaction((tx) => this.write(tx, runId, event, context)));
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

  /** Runs in progress no live process holds (of them, `runId` alone when given): no owner, or an owner silent since before `staleBefore`; never `instance`'s own. */
  async orphans(instance: string, staleBefore: number, { limit = 100, runId }: { limit?: number; runId?: string } = {}): Promise<RunOwnership[]> {
    const query = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .select(['run.id', 'run.status', 'run.ownerInstance', 'run.heartbeatAt'])
      .where('run.status IN (:...statuses)', { statuses: IN_PROGRESS });
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
        this.dataSource.transaction(async (tx) => {
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
    return this.dataSource.options.type === 'postgres' ? runId : '*';
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

  private serialized<T>(queue: string, work: () => Promise<T>): Promise<T> {
    // better-sqlite3 answers synchronously, so queued transactions would run back to back as one chain
    // of microtasks and starve timers and I/O (tool timeouts fire late, clean calls time out): each
    // write first yields to the event loop.
    const result = (this.queues.get(queue) ?? Promise.resolve()).then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work);
    const tail = result.catch(() => undefined);
    this.queues.set(queue, tail);
    void tail.then(() => {
      if (this.queues.get(queue) === tail) this.queues.delete(queue);
    });
    return result;
  }

  private async write(tx: EntityManager, runId: string, event: RunEvent, context: AppendContext): Promise<number> {
    const at = millisOf(event.at, '/at');
    const seq = event.type === 'RUN_STARTED' ? await this.start(tx, event.run, context.owner ?? null) : await this.nextSeq(tx, runId);
    await tx.getRepository(RunEventEntity).insert({ runId, seq, type: event.type, at, payload: storedPayload(event) });
    const runs = tx.getRepository(RunEntity);
    if (context.resume !== undefined) await runs.update({ id: runId }, { resume: json(context.resume) });
    const steps = tx.getRepository(RunStepEntity);
    switch (event.type) {
      case 'RUN_STARTED':
        break;
      case 'STEP_STARTED':
        await this.saveStep(tx, runId, event.stepId, { tool: event.tool, status: 'RUNNING', startedAt: at });
        break;
      case 'STEP_PROGRESS':
        break;
      case 'ATTEMPT': {
        await tx.getRepository(StepAttemptEntity).insert({
          runId,
          seq,
          stepId: event.stepId,
          tool: event.tool,
          attempt: event.attempt,
          outcome: event.outcome,
          error: json(event.error),
          durationMs: Math.round(event.durationMs),
          at,
        });
        const step = await steps.findOneBy({ runId, stepId: event.stepId });
        await this.saveStep(tx, runId, event.stepId, { tool: event.tool, attempts: (step?.attempts ?? 0) + 1 });
        break;
      }
      case 'STEP_FINISHED':
        await this.saveStep(tx, runId, event.step.id, stepColumns(event.step));
        break;
      case 'APPROVAL_REQUESTED':
        await tx.getRepository(ApprovalEntity).save({
          runId,
          stepId: event.stepId,
          tool: event.tool,
          reason: event.reason,
          status: 'PENDING',
          requestedAt: at,
          decidedAt: null,
          decidedByTenant: null,
          decidedBySubject: null,
          comment: null,
        });
        await this.saveStep(tx, runId, event.stepId, { tool: event.tool, status: 'PENDING_APPROVAL', reason: event.reason });
        await runs.update({ id: runId }, { status: 'PENDING_APPROVAL' });
        break;
      case 'APPROVAL_DECIDED': {
        const approvals = tx.getRepository(ApprovalEntity);
        const decided = await approvals.update(
          { runId, stepId: event.stepId, status: 'PENDING' },
          { status: event.approved ? 'APPROVED' : 'REJECTED', decidedAt: at, decidedByTenant: event.by.tenant, decidedBySubject: event.by.subject, comment: event.comment ?? null },
        );
        if (!decided.affected) throw invalid(`step "${event.stepId}" of run "${runId}" has no pending approval`, '/stepId');
        if ((await approvals.countBy({ runId, status: 'PENDING' })) === 0) await runs.update({ id: runId }, { status: 'RUNNING' });
        break;
      }
      case 'REPLANNED':
        await runs.update({ id: runId }, { planId: event.planId, replans: event.attempt });
        break;
      case 'RUN_FINISHED':
        // A finished run never resumes: its resume point goes.
        await runs.update({ id: runId }, { ...this.runColumns(event.run), resume: null });
        for (const step of event.run.steps) await this.saveStep(tx, runId, step.id, stepColumns(step));
        break;
    }
    return seq;
  }

  /** The first event of a run creates its rows; a run id is used once. */
  private async start(tx: EntityManager, run: Run, owner: string | null): Promise<number> {
    if (run.id.length === 0 || run.id.length > 64) throw invalid('a run id has 1 to 64 characters', '/run/id');
    if (await tx.getRepository(RunEntity).existsBy({ id: run.id })) throw invalid(`run "${run.id}" has already started`, '/run/id');
    await tx.getRepository(RunEntity).insert({
      id: run.id,
      tenant: run.owner.tenant,
      subject: run.owner.subject,
      task: run.task ?? null,
      lastSeq: 1,
      ownerInstance: owner,
      heartbeatAt: owner === null ? null : Date.now(),
      resume: null,
      ...this.runColumns(run),
    });
    if (run.steps.length > 0) await tx.getRepository(RunStepEntity).insert(run.steps.map((step, position) => ({ runId: run.id, stepId: step.id, position, ...stepColumns(step) })));
    return 1;
  }

  private runColumns(run: Run): Pick<RunEntity, 'status' | 'traceId' | 'planId' | 'replans' | 'reason' | 'startedAt' | 'finishedAt'> {
    return {
      status: run.status,
      traceId: run.traceId,
      planId: run.planId,
      replans: run.replans,
      reason: run.reason ?? null,
      startedAt: millisOf(run.startedAt, '/run/startedAt'),
      finishedAt: run.finishedAt === null ? null : millisOf(run.finishedAt, '/run/finishedAt'),
    };
  }

  /** Takes the run's next sequence number; the row update also locks the run against a concurrent writer on PostgreSQL. */
  private async nextSeq(tx: EntityManager, runId: string): Promise<number> {
    const runs = tx.getRepository(RunEntity);
    const updated = await runs.increment({ id: runId }, 'lastSeq', 1);
    if (!updated.affected) throw invalid(`run "${runId}" has not started: its first event must be RUN_STARTED`, '/runId');
    const { lastSeq } = await runs.findOneOrFail({ select: { id: true, lastSeq: true }, where: { id: runId } });
    return lastSeq;
  }

  /** Updates a step's row, or adds it after the run's others (a step a re-plan introduced). */
  private async saveStep(tx: EntityManager, runId: string, stepId: string, columns: Partial<Omit<RunStepEntity, 'runId' | 'stepId' | 'position'>>): Promise<void> {
    const steps = tx.getRepository(RunStepEntity);
    const updated = await steps.update({ runId, stepId }, columns);
    if (updated.affected) return;
    const position = await steps.countBy({ runId });
    await steps.insert({
      runId,
      stepId,
      position,
      tool: '',
      status: 'WAITING',
      attempts: 0,
      output: null,
      error: null,
      reason: null,
      fallbackOf: null,
      dependsOn: '[]',
      startedAt: null,
      durationMs: 0,
      ...columns,
    });
  }
}
