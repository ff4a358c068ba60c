import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from '../security/support/two-tenants';
import { codesOf, graphql } from '../support/gateway-process';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';

/*
 * Chaos with SIGKILL: the built server runs plans with slow steps and steps waiting for approval, is
 * killed with SIGKILL mid-run, and is started again over the same data folder, several rounds. After
 * every restart each run reaches a terminal state or stays approvable (and approving or rejecting it
 * works), and no step is recorded twice. The figures are printed for the notes.
 *
 * TOOLGATE_CHAOS_KILL_ROUNDS (default 2) and TOOLGATE_CHAOS_KILL_RUNS (runs per round, default 12) size it.
 */
const ROUNDS = Number(process.env.TOOLGATE_CHAOS_KILL_ROUNDS ?? 2);
const RUNS = Number(process.env.TOOLGATE_CHAOS_KILL_RUNS ?? 12);
const HEARTBEAT_MS = 250;

const SLOW_TOOLS = `
const base = (name, extra) => ({
  name, title: 'Slow ' + name, description: 'Chaos fixture ' + name + ' for crash tests; never for real work.',
  category: ['testing'], tags: ['chaos'], examples: [],
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, label: { type: 'string' } }, additionalProperties: false },
  outputSchema: { type: 'object' },
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 30000, maxConcurrency: 64, retries: 0, idempotent: true },
  execution: 'server',
  ...extra,
});
const nap = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true }); });
exports.tools = [
  base('nap', { run: async (args, ctx) => { await nap(args.ms || 0, ctx.signal); return { slept: args.ms || 0, label: args.label || '' }; } }),
  base('erase', { permissions: { scopes: [], risk: 'destructive' }, run: async (args) => ({ erased: args.label || '' }) }),
];
`;

const EXECUTE = `mutation ($plan: PlanInput!) { executePlan(plan: $plan) { id status } }`;
const step = (id: string, tool: string, args: Record<string, unknown>, dependsOn: string[] = []) => ({ id, tool, arguments: args, dependsOn, reason: 'chaos' });

/** Three shapes: a chain killed in its long middle step, a run paused for approval, a quick one. */
function planFor(round: number, i: number) {
  const id = `kill-${round}-${i}`;
  const shape = i % 3;
  if (shape === 0)
    return { id, steps: [step('a', 'slow/nap', { ms: 20 }), step('b', 'slow/nap', { ms: 20_000 }, ['a']), step('c', 'slow/nap', { ms: 20 }, ['b']), step('d', 'slow/nap', { ms: 15_000 })] };
  if (shape === 1) return { id, steps: [step('a', 'slow/nap', { ms: 20 }), step('x', 'slow/erase', { label: id }, ['a']), step('c', 'slow/nap', { ms: 20 }, ['x'])] };
  return { id, steps: [step('a', 'slow/nap', { ms: 10 })] };
}

interface ListedRun {
  id: string;
  status: string;
  reason: string | null;
  steps: { id: string; status: string; error: { code: string } | null }[];
}

const listRuns = async (url: string) =>
  (await graphql<{ runs: ListedRun[] }>(url, `{ runs(filter: { limit: 100 }) { id status reason steps { id status error { code } } } }`, { key: KEYS.acmeAdmin })).data?.runs ?? [];

/** The server's pid, from its own log lines (pino writes it on each). */
function pidOf(server: TwoTenantServer): number {
  const line = server.gateway
    .logs()
    .split('\n')
    .find((l) => l.startsWith('{') && l.includes('"pid"'));
  return (JSON.parse(line as string) as { pid: number }).pid;
}

describe('chaos: SIGKILL mid-run and restart over the same data folder', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-sigkill-'));
  const pluginDir = join(work, 'extra-plugins');
  writePlugin(pluginDir, { folder: 'slow', packageJson: pluginPackage('@fixtures/slow', '1.0.0'), entry: SLOW_TOOLS });
  const env = { TOOLGATE_RUN_HEARTBEAT_MS: String(HEARTBEAT_MS), TOOLGATE_EXEC_MAX_PARALLEL: '4' };
  const start = () => startTwoTenantServer(env, { extraPluginDirs: [pluginDir], work });
  let server: TwoTenantServer | undefined;

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('every run ends or stays approvable after each kill, approvals work after the restart, and no step is recorded twice', async () => {
    const figures = {
      rounds: ROUNDS,
      runsStarted: 0,
      runsRecorded: 0,
      killedMidStep: 0,
      recoveredFailed: 0,
      approvable: 0,
      approved: 0,
      rejected: 0,
      finishedBeforeKill: 0,
      duplicates: 0,
      seqGaps: 0,
    };
    server = await start();
    for (let round = 0; round < ROUNDS; round++) {
      // Fire the round's plans and kill the server while their long steps run.
      const requests = Array.from({ length: RUNS }, (_, i) => graphql(server?.url as string, EXECUTE, { key: KEYS.acmeAdmin, variables: { plan: planFor(round, i) } }).catch(() => null));
      figures.runsStarted += RUNS;
      for (let i = 0; i < 100; i++) {
        const running = (await listRuns(server.url)).filter((r) => r.steps.some((s) => s.status === 'RUNNING' && s.id === 'b'));
        if (running.length >= Math.floor(RUNS / 3)) break;
        await sleep(100);
      }
      process.kill(pidOf(server), 'SIGKILL');
      await Promise.all(requests);
      await server.stop();

      // Restart over the same folder; the dead process's runs are taken once its heartbeat is stale.
      server = await start();
      let runs: ListedRun[] = [];
      for (let i = 0; i < 100; i++) {
        runs = await listRuns(server.url);
        if (runs.every((r) => r.status !== 'RUNNING')) break;
        await sleep(100);
      }
      expect(runs.filter((r) => r.status === 'RUNNING')).toEqual([]);
      expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
      // A request the kill cut off before its run was recorded left nothing; every recorded run is here.
      expect(runs.length).toBeGreaterThan(round * RUNS);
      figures.runsRecorded = runs.length;
      for (const run of runs) expect(['SUCCEEDED', 'FAILED', 'CANCELLED', 'PENDING_APPROVAL']).toContain(run.status);

      // Runs that waited for approval are still approvable here: approve half, reject the rest.
      const pending = runs.filter((r) => r.status === 'PENDING_APPROVAL');
      figures.approvable += pending.length;
      for (const [n, run] of pending.entries()) {
        const mutation = n % 2 === 0 ? 'approveStep' : 'rejectStep';
        const decided = await graphql<Record<string, { status: string }>>(server.url, `mutation ($runId: ID!) { ${mutation}(runId: $runId, stepId: "x", comment: "after the kill") { status } }`, {
          key: KEYS.acmeAdmin,
          variables: { runId: run.id },
        });
        expect(codesOf(decided)).toEqual([]);
        expect(decided.data?.[mutation].status).toBe(n % 2 === 0 ? 'SUCCEEDED' : 'CANCELLED');
        if (n % 2 === 0) figures.approved++;
        else figures.rejected++;
      }
    }
    const final = await listRuns(server.url);
    await server.stop();
    server = undefined;

    expect(final.every((r) => ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(r.status))).toBe(true);
    for (const run of final) {
      const interrupted = run.steps.filter((s) => s.error?.code === 'INTERRUPTED').length;
      figures.killedMidStep += interrupted;
      if (run.reason?.includes('interrupted')) figures.recoveredFailed++;
      if (run.status === 'SUCCEEDED' && run.steps.length === 1) figures.finishedBeforeKill++;
    }
    // The audit itself, read from the file: one STEP_FINISHED per step, events numbered without gaps.
    const db = new Database(join(work, 'data', 'toolgate.db'), { readonly: true });
    try {
      const duplicates = db
        .prepare(`SELECT run_id, json_extract(payload, '$.step.id') AS step, COUNT(*) AS n FROM run_events WHERE type = 'STEP_FINISHED' GROUP BY run_id, step HAVING COUNT(*) > 1`)
        .all();
      const gaps = db.prepare(`SELECT run_id FROM run_events GROUP BY run_id HAVING MAX(seq) <> COUNT(*)`).all();
      const runFinished = db.prepare(`SELECT run_id FROM run_events WHERE type = 'RUN_FINISHED' GROUP BY run_id HAVING COUNT(*) > 1`).all();
      figures.duplicates = duplicates.length + runFinished.length;
      figures.seqGaps = gaps.length;
    } finally {
      db.close();
    }
    console.log(`SIGKILL chaos figures: ${JSON.stringify(figures)}`);
    expect(figures.duplicates).toBe(0);
    expect(figures.seqGaps).toBe(0);
    expect(figures.killedMidStep).toBeGreaterThan(0);
    expect(figures.approvable).toBeGreaterThan(0);
  }, 600_000);
});
