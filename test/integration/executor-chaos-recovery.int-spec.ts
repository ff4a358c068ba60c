import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DEFAULT_EXECUTOR_OPTIONS, ExecutorModule, PlanRunner, RunMaintenance, RunStore, TypeormRunStore } from '@toolgate/executor';
import type { Plan } from '@toolgate/planner';
import { type DatabaseOptions, RegistryModule, RunAuditService, ToolVersionState } from '@toolgate/registry';
import { ErrorCode, type Run, type RunEvent } from '@toolgate/sdk';
import { type DatabaseKind, testDatabase } from '../support/databases';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';
import { principal, step, writePolicy } from './executor-fixtures';

/*
 * Crash recovery through the production runner and store on a real database: process A runs plans and
 * then "dies" (its store refuses every write from that moment, as a killed process writes nothing), and
 * process B, started over the same database, finishes what A left running and restores what A left
 * waiting for approval, which B's runner then approves, rejects or cancels.
 */
const TOOLS = `
const sleep = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true }); });
const base = (name, extra) => ({
  name, title: 'Crash ' + name, description: 'Crash-recovery fixture ' + name + '; for tests only, never for real work.',
  category: ['testing'], tags: ['crash'], examples: [],
  inputSchema: { type: 'object', properties: { label: { type: 'string' }, size: { type: 'integer' } }, additionalProperties: false },
  outputSchema: { type: 'object' },
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 60000, maxConcurrency: 16, retries: 0, idempotent: true },
  execution: 'server',
  ...extra,
});
exports.calls = [];
exports.tools = [
  base('echo', { run: async (args) => { exports.calls.push('echo:' + args.label); return { label: args.label, text: 'x'.repeat(args.size || 0) }; } }),
  base('hang', { run: async (args, ctx) => { exports.calls.push('hang:' + args.label); await sleep(600000, ctx.signal); throw new Error('stopped'); } }),
  base('wipe', { permissions: { scopes: [], risk: 'destructive' }, run: async (args) => { exports.calls.push('wipe:' + args.label); return { wiped: args.label }; } }),
];
`;

const ROLES = {
  worker: { grants: [{ tools: 'crash/*', actions: ['discover', 'execute'], maxRisk: 'destructive' }] },
  approver: { grants: [{ tools: 'crash/*', actions: ['discover', 'execute'], maxRisk: 'destructive' }] },
} as const;
const owner = principal('alice', ['worker']);
const approver = principal('bob', ['approver']);
const HEARTBEAT_MS = 100;

/** A store that dies on demand: from then on it writes nothing, like a killed process. */
class MortalRunStore extends TypeormRunStore {
  dead = false;
  override async record(...args: Parameters<TypeormRunStore['record']>): Promise<void> {
    if (this.dead) throw new Error('this process is dead');
    return super.record(...args);
  }
  override async heartbeat(): Promise<void> {
    if (!this.dead) await super.heartbeat();
  }
  override async release(runIds: string[]): Promise<void> {
    if (!this.dead) await super.release(runIds);
  }
}

interface Process {
  app: INestApplicationContext;
  runner: PlanRunner;
  store: MortalRunStore;
  audit: RunAuditService;
}

async function startProcess(database: DatabaseOptions, work: string, maintenance: boolean, heartbeatMs = HEARTBEAT_MS): Promise<Process> {
  const pluginDir = join(work, 'plugins');
  const policyFile = join(work, 'policy.json');
  const moduleRef = await Test.createTestingModule({
    imports: [
      RegistryModule.forRoot({ database, pluginDirs: [pluginDir], policyFile, newVersionState: ToolVersionState.ACTIVE, isGlobal: true }),
      ExecutorModule.forRoot({
        maxParallel: 4,
        deadlineMs: 60_000,
        maxSteps: 20,
        maxReplans: 0,
        isolation: 'none',
        storage: { ...DEFAULT_EXECUTOR_OPTIONS.storage, heartbeatMs, maintenance },
      }),
    ],
  })
    .overrideProvider(RunStore)
    .useClass(MortalRunStore)
    .compile();
  const app = await moduleRef.init();
  return { app, runner: app.get(PlanRunner), store: app.get(RunStore) as MortalRunStore, audit: app.get(RunAuditService) };
}

const plan = (id: string, ...steps: Plan['steps']): Plan => ({ id, decision: 'USE_TOOLS', steps });
const stepsOf = (run: Run | null) => Object.fromEntries((run?.steps ?? []).map((s) => [s.id, s.status]));
const finishedTwice = (events: RunEvent[]) => {
  const ids = events.filter((e) => e.type === 'STEP_FINISHED').map((e) => (e as Extract<RunEvent, { type: 'STEP_FINISHED' }>).step.id);
  return ids.length !== new Set(ids).size;
};

describe.each<DatabaseKind>(['sqlite', 'postgres'])('crash recovery on %s', (kind) => {
  let work: string;
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Process;
  let b: Process | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-recovery-'));
    writePlugin(join(work, 'plugins'), { folder: 'crash', packageJson: pluginPackage('@fixtures/crash', '1.0.0'), entry: TOOLS });
    writePolicy(join(work, 'policy.json'), ROLES);
    db = await testDatabase(kind);
    a = await startProcess(db.options, work, false);
  });

  afterAll(async () => {
    await b?.app.close();
    await a?.app.close();
    await db?.drop();
  });

  it('finishes runs a dead process left RUNNING; the ones it left waiting for approval stay approvable in the next process', async () => {
    // Process A: one run with a step in flight and dependents; three runs paused for approval.
    const inFlight = a.runner.execute(
      plan(
        'p-running',
        step('done', 'crash/echo', { label: 'done' }),
        step('stuck', 'crash/hang', { label: 'stuck' }, ['done']),
        step('after', 'crash/echo', { label: 'after' }, ['stuck']),
        step('free', 'crash/hang', { label: 'free' }),
      ),
      owner,
      { runId: 'r-running' },
    );
    const paused: Run[] = [];
    for (const id of ['r-approve', 'r-reject', 'r-cancel']) {
      paused.push(
        await a.runner.execute(
          plan(`p-${id}`, step('read', 'crash/echo', { label: `${id}-read` }), step('wipe', 'crash/wipe', { label: id }, ['read']), step('tail', 'crash/echo', { label: `${id}-tail` }, ['wipe'])),
          owner,
          { runId: id },
        ),
      );
    }
    expect(paused.map((r) => r.status)).toEqual(['PENDING_APPROVAL', 'PENDING_APPROVAL', 'PENDING_APPROVAL']);
    for (let i = 0; i < 100 && stepsOf(await a.audit.load('r-running')).stuck !== 'RUNNING'; i++) await sleep(20);
    expect(stepsOf(await a.audit.load('r-running'))).toEqual({ done: 'SUCCEEDED', stuck: 'RUNNING', after: 'WAITING', free: 'RUNNING' });

    // A dies. B starts over the same database once A has been silent for longer than three heartbeats.
    a.store.dead = true;
    void inFlight.catch(() => undefined);
    await sleep(4 * HEARTBEAT_MS);
    const before = await a.audit.events('r-running');
    b = await startProcess(db.options, work, true);

    const running = await b.audit.load('r-running');
    expect(running).toMatchObject({ status: 'FAILED', reason: expect.stringContaining('interrupted') });
    expect(running?.steps.find((s) => s.id === 'stuck')).toMatchObject({ status: 'FAILED', error: { code: ErrorCode.INTERRUPTED } });
    expect(running?.steps.find((s) => s.id === 'free')).toMatchObject({ status: 'FAILED', error: { code: ErrorCode.INTERRUPTED } });
    expect(running?.steps.find((s) => s.id === 'after')).toMatchObject({ status: 'SKIPPED', reason: 'dependency stuck ended FAILED' });
    expect(running?.steps.find((s) => s.id === 'done')).toMatchObject({ status: 'SUCCEEDED', output: { label: 'done' } });
    // Appended after what A recorded, in order, each step finished once.
    const events = (await b.audit.events('r-running')).map((e) => e.event);
    expect(events.slice(0, before.length)).toEqual(before.map((e) => e.event));
    expect(events.slice(before.length).map((e) => e.type)).toEqual(['STEP_FINISHED', 'STEP_FINISHED', 'STEP_FINISHED', 'RUN_FINISHED']);
    expect(finishedTwice(events)).toBe(false);

    // The paused runs still wait in the audit, held by nobody: the process that gets a decision takes them.
    for (const id of ['r-approve', 'r-reject', 'r-cancel']) {
      expect((await b.audit.load(id))?.status).toBe('PENDING_APPROVAL');
      expect(b.runner.get(id)).toBeUndefined();
    }

    const approved = await b.runner.decide('r-approve', 'wipe', true, approver, 'go');
    expect(approved).toMatchObject({ status: 'SUCCEEDED' });
    expect(approved.steps.map((s) => [s.id, s.status, s.output])).toEqual([
      ['read', 'SUCCEEDED', { label: 'r-approve-read', text: '' }],
      ['wipe', 'SUCCEEDED', { wiped: 'r-approve' }],
      ['tail', 'SUCCEEDED', { label: 'r-approve-tail', text: '' }],
    ]);
    const rejected = await b.runner.decide('r-reject', 'wipe', false, approver, 'no');
    expect(stepsOf(rejected)).toEqual({ read: 'SUCCEEDED', wipe: 'CANCELLED', tail: 'SKIPPED' });
    expect(rejected.status).toBe('CANCELLED');
    const cancelled = await b.runner.cancel('r-cancel', owner);
    expect(cancelled.status).toBe('CANCELLED');
    for (const id of ['r-approve', 'r-reject', 'r-cancel']) {
      const stored = await b.audit.events(id);
      expect(finishedTwice(stored.map((e) => e.event))).toBe(false);
      expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
      expect((await b.audit.load(id))?.status).toBe(id === 'r-approve' ? 'SUCCEEDED' : 'CANCELLED');
    }
    // The destructive step ran once, in B, after the approval; nothing ran twice.
    const calls = (require(join(work, 'plugins', 'crash', 'index.js')) as { calls: string[] }).calls;
    expect(calls.filter((c) => c === 'wipe:r-approve')).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('wipe:') && c !== 'wipe:r-approve')).toEqual([]);
    expect(calls.filter((c) => c === 'echo:r-approve-read')).toHaveLength(1);
  });

  it('a running run held by a live process is not taken; a paused one is held by nobody and one decision, on any process, takes it', async () => {
    const owning = b as Process;
    const busy = owning.runner.execute(plan('p-busy', step('hang', 'crash/hang', { label: 'busy' })), owner, { runId: 'r-busy' });
    for (let i = 0; i < 100 && stepsOf(await owning.audit.load('r-busy')).hang !== 'RUNNING'; i++) await sleep(20);
    const live = await owning.runner.execute(plan('p-live', step('wipe', 'crash/wipe', { label: 'live' })), owner, { runId: 'r-live' });
    expect(live.status).toBe('PENDING_APPROVAL');
    await owning.app.get(RunMaintenance).tick();
    // A third process, alive too. Its own heartbeat is a minute (stale after three), so only the owner
    // check is tested, not how fast a loaded machine runs B's timer.
    const c = await startProcess(db.options, work, true, 60_000);
    try {
      await c.app.get(RunMaintenance).tick();
      expect((await c.audit.load('r-busy'))?.status).toBe('RUNNING');
      await expect(c.runner.cancel('r-busy', owner)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });

      // The same approval reaching both processes at once is applied once: one resumes the run, the other is told it no longer waits.
      const decisions = await Promise.allSettled([owning.runner.decide('r-live', 'wipe', true, approver), c.runner.decide('r-live', 'wipe', true, approver)]);
      const fulfilled = decisions.filter((d): d is PromiseFulfilledResult<Run> => d.status === 'fulfilled');
      const rejected = decisions.filter((d): d is PromiseRejectedResult => d.status === 'rejected');
      expect(fulfilled.map((d) => d.value.status)).toEqual(['SUCCEEDED']);
      expect(rejected.map((d) => (d.reason as { code?: string }).code)).toEqual([ErrorCode.INVALID_ARGUMENTS]);
      const calls = (require(join(work, 'plugins', 'crash', 'index.js')) as { calls: string[] }).calls;
      expect(calls.filter((call) => call === 'wipe:live')).toHaveLength(1);
      const approvals = (await c.audit.events('r-live')).filter((e) => e.event.type === 'APPROVAL_DECIDED');
      expect(approvals).toHaveLength(1);
    } finally {
      await c.app.close();
      await owning.runner.cancel('r-busy', owner);
      await busy.catch(() => undefined);
    }
  });

  it('a shutdown leaves a paused run approvable: the next process takes it at the decision and resumes it there', async () => {
    const paused = await (b as Process).runner.execute(plan('p-late', step('wipe', 'crash/wipe', { label: 'late' })), owner, { runId: 'r-late' });
    expect(paused.status).toBe('PENDING_APPROVAL');
    await b?.app.close();
    b = undefined;
    const d = await startProcess(db.options, work, true);
    try {
      await expect(d.runner.decide('r-late', 'wipe', true, approver)).resolves.toMatchObject({ status: 'SUCCEEDED', steps: [{ id: 'wipe', output: { wiped: 'late' } }] });
    } finally {
      await d.app.close();
    }
  });
});
