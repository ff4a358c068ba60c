import { ErrorCode, type Run, type RunEvent, type RunStep, ToolgateError } from '@toolgate/sdk';
import type { RunStepEntity } from '../persistence/run-step.entity';
import type { StatementResult, Statements } from './statement.runner';

/** What an append may carry besides its event: the process taking the run (RUN_STARTED), a new resume point (any event). */
export interface AppendContext {
  owner?: string;
  resume?: unknown;
}

export const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

export const invalid = (message: string, path: string): ToolgateError => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);

export function millisOf(instant: string, path: string): number {
  const millis = Date.parse(instant);
  if (Number.isNaN(millis)) throw invalid(`"${instant}" is not an ISO-8601 instant`, path);
  return millis;
}

/** A step's row but its keys and position, by property. */
type StepColumns = Partial<Omit<RunStepEntity, 'runId' | 'stepId' | 'position'>>;

/** The database column of each step property (the entity's names). */
const STEP_COLUMN: Record<keyof StepColumns, string> = {
  tool: 'tool',
  status: 'status',
  attempts: 'attempts',
  output: 'output',
  error: 'error',
  reason: 'reason',
  fallbackOf: 'fallback_of',
  dependsOn: 'depends_on',
  startedAt: 'started_at',
  durationMs: 'duration_ms',
};

/** A step a later event names before any snapshot had it (a step a re-plan introduced). */
const NEW_STEP: Required<StepColumns> = {
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
};

/** The run columns an event may set, by database column. */
type RunColumns = Partial<Record<'status' | 'trace_id' | 'plan_id' | 'replans' | 'reason' | 'started_at' | 'finished_at' | 'resume', string | number | null>>;

function withoutOutput(step: RunStep): RunStep {
  const { output: _output, ...rest } = step;
  return rest;
}

/**
 * The payload kept for an event: outputs of steps are stored once, in `run_steps.output`, and put back
 * on read, so STEP_FINISHED and RUN_FINISHED do not store every output twice more.
 */
function storedPayload(event: RunEvent): string {
  if (event.type === 'STEP_FINISHED') return JSON.stringify({ ...event, step: withoutOutput(event.step) });
  if (event.type === 'RUN_FINISHED') return JSON.stringify({ ...event, run: { ...event.run, steps: event.run.steps.map(withoutOutput) } });
  return JSON.stringify(event);
}

/** The step columns a snapshot sets (position and keys aside). */
function stepColumns(step: RunStep): Required<StepColumns> {
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

function runColumns(run: Run): RunColumns {
  return {
    status: run.status,
    trace_id: run.traceId,
    plan_id: run.planId,
    replans: run.replans,
    reason: run.reason ?? null,
    started_at: millisOf(run.startedAt, '/run/startedAt'),
    finished_at: run.finishedAt === null ? null : millisOf(run.finishedAt, '/run/finishedAt'),
  };
}

/**
 * The statements that append one event to a run and apply it to the run's rows, in one transaction;
 * yields each statement and takes its result, so the same steps run synchronously on SQLite and
 * awaited on PostgreSQL (`StatementRunner`). Returns the event's sequence number in its run.
 */
export function* eventStatements(runId: string, event: RunEvent, context: AppendContext): Statements<number> {
  const at = millisOf(event.at, '/at');
  const resume = context.resume !== undefined ? json(context.resume) : undefined;
  let seq: number;
  if (event.type === 'RUN_STARTED') {
    seq = yield* start(event.run, context.owner ?? null, resume ?? null);
  } else {
    const columns: RunColumns = resume !== undefined ? { resume } : {};
    if (event.type === 'APPROVAL_REQUESTED') columns.status = 'PENDING_APPROVAL';
    if (event.type === 'REPLANNED') Object.assign(columns, { plan_id: event.planId, replans: event.attempt });
    // A finished run never resumes: its resume point goes.
    if (event.type === 'RUN_FINISHED') Object.assign(columns, runColumns(event.run), { resume: null });
    seq = yield* nextSeq(runId, columns);
  }
  yield sql('INSERT INTO run_events (run_id, seq, type, at, payload) VALUES (?, ?, ?, ?, ?)', runId, seq, event.type, at, storedPayload(event));
  switch (event.type) {
    case 'RUN_STARTED':
    case 'STEP_PROGRESS':
    case 'REPLANNED':
      break;
    case 'STEP_STARTED':
      yield* saveStep(runId, event.stepId, { tool: event.tool, status: 'RUNNING', startedAt: at });
      break;
    case 'ATTEMPT':
      yield sql(
        'INSERT INTO step_attempts (run_id, seq, step_id, tool, attempt, outcome, error, duration_ms, at, code_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        runId,
        seq,
        event.stepId,
        event.tool,
        event.attempt,
        event.outcome,
        json(event.error),
        Math.round(event.durationMs),
        at,
        typeof event.codeHash === 'string' ? event.codeHash.slice(0, 64) : null,
      );
      yield* saveStep(runId, event.stepId, { tool: event.tool }, { countAttempt: true });
      break;
    case 'STEP_FINISHED':
      yield* saveStep(runId, event.step.id, stepColumns(event.step));
      break;
    case 'APPROVAL_REQUESTED':
      yield sql(
        'INSERT INTO approvals (run_id, step_id, tool, reason, status, requested_at, decided_at, decided_by_tenant, decided_by_subject, comment) ' +
          "VALUES (?, ?, ?, ?, 'PENDING', ?, NULL, NULL, NULL, NULL) ON CONFLICT (run_id, step_id) DO UPDATE SET tool = excluded.tool, reason = excluded.reason, " +
          "status = 'PENDING', requested_at = excluded.requested_at, decided_at = NULL, decided_by_tenant = NULL, decided_by_subject = NULL, comment = NULL",
        runId,
        event.stepId,
        event.tool,
        event.reason,
        at,
      );
      yield* saveStep(runId, event.stepId, { tool: event.tool, status: 'PENDING_APPROVAL', reason: event.reason });
      break;
    case 'APPROVAL_DECIDED': {
      const decided = yield sql(
        "UPDATE approvals SET status = ?, decided_at = ?, decided_by_tenant = ?, decided_by_subject = ?, comment = ? WHERE run_id = ? AND step_id = ? AND status = 'PENDING'",
        event.approved ? 'APPROVED' : 'REJECTED',
        at,
        event.by.tenant,
        event.by.subject,
        event.comment ?? null,
        runId,
        event.stepId,
      );
      if (decided.affected === 0) throw invalid(`step "${event.stepId}" of run "${runId}" has no pending approval`, '/stepId');
      const { rows } = yield sql("SELECT COUNT(*) AS pending FROM approvals WHERE run_id = ? AND status = 'PENDING'", runId);
      if (Number(rows[0].pending) === 0) yield sql("UPDATE runs SET status = 'RUNNING' WHERE id = ?", runId);
      break;
    }
    case 'RUN_FINISHED':
      for (const step of event.run.steps) yield* saveStep(runId, step.id, stepColumns(step));
      break;
  }
  return seq;
}

const sql = (text: string, ...parameters: unknown[]) => ({ text, parameters });

/** The first event of a run creates its rows; a run id is used once. */
function* start(run: Run, owner: string | null, resume: string | null): Statements<number> {
  if (run.id.length === 0 || run.id.length > 64) throw invalid('a run id has 1 to 64 characters', '/run/id');
  const columns = runColumns(run);
  const inserted: StatementResult = yield sql(
    'INSERT INTO runs (id, tenant, subject, task, last_seq, owner_instance, heartbeat_at, resume, status, trace_id, plan_id, replans, reason, started_at, finished_at) ' +
      'VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    run.id,
    run.owner.tenant,
    run.owner.subject,
    run.task ?? null,
    owner,
    owner === null ? null : Date.now(),
    resume,
    columns.status,
    columns.trace_id,
    columns.plan_id,
    columns.replans,
    columns.reason,
    columns.started_at,
    columns.finished_at,
  );
  if (inserted.affected === 0) throw invalid(`run "${run.id}" has already started`, '/run/id');
  for (const [position, step] of run.steps.entries()) yield insertStep(run.id, step.id, position, stepColumns(step));
  return 1;
}

/** Takes the run's next sequence number, setting `columns` on the way; the row update also locks the run against a concurrent writer on PostgreSQL. */
function* nextSeq(runId: string, columns: RunColumns): Statements<number> {
  const names = Object.keys(columns) as (keyof RunColumns)[];
  const { rows } = yield sql(`UPDATE runs SET last_seq = last_seq + 1${names.map((name) => `, ${name} = ?`).join('')} WHERE id = ? RETURNING last_seq`, ...names.map((name) => columns[name]), runId);
  if (rows.length === 0) throw invalid(`run "${runId}" has not started: its first event must be RUN_STARTED`, '/runId');
  return Number(rows[0].last_seq);
}

/** Updates a step's row (`countAttempt`: one attempt more), or adds it after the run's others (a step a re-plan introduced). */
function* saveStep(runId: string, stepId: string, columns: StepColumns, { countAttempt = false } = {}): Statements<void> {
  const names = Object.keys(columns) as (keyof StepColumns)[];
  const assignments = [...names.map((name) => `${STEP_COLUMN[name]} = ?`), ...(countAttempt ? ['attempts = attempts + 1'] : [])];
  const updated = yield sql(`UPDATE run_steps SET ${assignments.join(', ')} WHERE run_id = ? AND step_id = ?`, ...names.map((name) => columns[name]), runId, stepId);
  if (updated.affected > 0) return;
  const { rows } = yield sql('SELECT COUNT(*) AS steps FROM run_steps WHERE run_id = ?', runId);
  yield insertStep(runId, stepId, Number(rows[0].steps), { ...(countAttempt ? { attempts: 1 } : {}), ...columns });
}

const STEP_NAMES = Object.keys(STEP_COLUMN) as (keyof StepColumns)[];
const INSERT_STEP = `INSERT INTO run_steps (run_id, step_id, position, ${STEP_NAMES.map((name) => STEP_COLUMN[name]).join(', ')}) VALUES (?, ?, ?${', ?'.repeat(STEP_NAMES.length)})`;

function insertStep(runId: string, stepId: string, position: number, columns: StepColumns) {
  const row = { ...NEW_STEP, ...columns };
  return sql(INSERT_STEP, runId, stepId, position, ...STEP_NAMES.map((name) => row[name]));
}
