/**
 * Remote tool workers vs plugin worker threads (issue 11), on 127.0.0.1 with real parts: nats-server with
 * the deployment's credentials, the built gateway (BM25 only, SQLite) hosting one plugin package in its
 * own plugin worker threads, and `toolgate worker` processes hosting the same code under another name.
 * - latency: one-step `executePlan` over GraphQL, sequential after a warm-up, local and remote interleaved
 *   call by call; client round trip and the step's recorded duration, p50/p95, ratio remote / local;
 * - throughput: closed loop, `--concurrency` calls in flight for `--seconds` each, of `echo` (no work: the
 *   transport's own cost) and `work` (20 ms of waiting: what a worker's capacity buys), local, then remote
 *   with 1 worker, then with 2; calls/s, errors, and each worker's share of the calls.
 * Prints one JSON object and keeps it in bench/remote/results/.
 * Usage: npm run bench:remote [-- --calls 300 --warmup 40 --concurrency 16 --seconds 10]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from '@toolgate/retrieval/evaluation';
import { BM25_ONLY, graphql, REPO_ROOT, type RunningGateway, type RunningWorker, startGateway, startWorker } from '../../test/support/gateway-process';
import { startNats } from '../../test/support/nats-server';
import { pluginPackage, writePlugin } from '../../test/support/plugin-fixtures';
import { natsEnv, USERS } from '../../test/support/remote-fixtures';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const CALLS = option('calls', 300);
const WARMUP = option('warmup', 40);
const CONCURRENCY = option('concurrency', 16);
const SECONDS = option('seconds', 10);
const WORK_MS = 20;

const TOOLS = `
const io = { inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 }, text: { type: 'string' } }, additionalProperties: false }, outputSchema: { type: 'object' } };
const base = (name, run) => ({
  name, title: 'Bench ' + name, description: 'Benchmark fixture ' + name + ' for the remote worker benchmark; never for real work.',
  category: ['testing'], tags: ['bench'], examples: [], ...io,
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 10000, maxConcurrency: 256, retries: 0, idempotent: true },
  execution: 'server', run,
});
exports.tools = [
  base('echo', (args) => ({ text: args.text || '' })),
  base('work', (args, ctx) => new Promise((resolve) => { const t = setTimeout(() => resolve({ waited: args.ms || 0 }), args.ms || 0); ctx.signal.addEventListener('abort', () => clearTimeout(t), { once: true }); })),
];
`;

const EXECUTE = `mutation ($plan: PlanInput!) { executePlan(plan: $plan) { status steps { status durationMs error { code message } } } }`;
const round = (n: number) => Math.round(n * 100) / 100;

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: samples.length, p50Ms: round(percentile(sorted, 50)), p95Ms: round(percentile(sorted, 95)), meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length) };
}

let planCounter = 0;
/** One one-step plan; the client round trip, the step's own recorded duration, and its error code if it failed. */
async function call(gateway: RunningGateway, tool: string, args: Record<string, unknown>): Promise<{ roundTripMs: number; stepMs: number; error?: string }> {
  const started = performance.now();
  const response = await graphql<{ executePlan: { status: string; steps: { status: string; durationMs: number; error: { code: string } | null }[] } }>(gateway.url, EXECUTE, {
    variables: { plan: { id: `bench-${++planCounter}`, steps: [{ id: 'a', tool, arguments: args, dependsOn: [], reason: 'bench' }] } },
  });
  const roundTripMs = performance.now() - started;
  const run = response.data?.executePlan;
  if (!run) return { roundTripMs, stepMs: 0, error: response.errors?.[0]?.extensions?.code ?? 'NO_RUN' };
  const step = run.steps[0];
  return { roundTripMs, stepMs: step.durationMs, ...(step.status === 'SUCCEEDED' ? {} : { error: step.error?.code ?? step.status }) };
}

/** `CONCURRENCY` callers, each calling again as soon as its call ends, for `SECONDS`. */
async function closedLoop(gateway: RunningGateway, tool: string, args: Record<string, unknown>) {
  const until = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const result = await call(gateway, tool, args);
        if (result.error) errors[result.error] = (errors[result.error] ?? 0) + 1;
        else latencies.push(result.roundTripMs);
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  return { callsPerSecond: round(latencies.length / wallS), ok: latencies.length, errors, roundTrip: summary(latencies) };
}

const acceptedBy = (workers: RunningWorker[], tool: string) => Object.fromEntries(workers.map((w) => [w.id, w.accepted().filter((a) => a.tool.startsWith(tool)).length]));

async function liveWorkers(gateway: RunningGateway, toolId: string): Promise<number> {
  const response = await graphql<{ toolHealth: { toolId: string; health: { detail: string | null } | null }[] }>(gateway.url, '{ toolHealth { toolId health { detail } } }');
  const detail = response.data?.toolHealth.find((h) => h.toolId === toolId)?.health?.detail ?? '';
  return Number(/^(\d+) worker/.exec(detail)?.[1] ?? 0);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-bench-remote-'));
  const localPlugins = join(work, 'local');
  const remotePlugins = join(work, 'remote');
  writePlugin(localPlugins, { folder: 'local', packageJson: pluginPackage('@bench/local', '1.0.0'), entry: TOOLS });
  writePlugin(remotePlugins, { folder: 'remote', packageJson: pluginPackage('@bench/remote', '1.0.0'), entry: TOOLS });
  const nats = await startNats({ users: USERS });
  const workerEnv = { ...natsEnv(nats.url, 'worker'), TOOLGATE_PLUGIN_DIRS: remotePlugins, TOOLGATE_PLUGIN_IMPORT_CACHE: 'off', TOOLGATE_WORKER_CAPACITY: '512' };
  const workers: RunningWorker[] = [];
  let gateway: RunningGateway | undefined;
  try {
    workers.push(await startWorker('w1', workerEnv));
    gateway = await startGateway(
      // The per-principal rate limit would cap both sides alike and hide what the path costs.
      {
        ...BM25_ONLY,
        TOOLGATE_DATA_DIR: join(work, 'data'),
        TOOLGATE_PLUGIN_DIRS: localPlugins,
        TOOLGATE_PLUGIN_IMPORT_CACHE: 'off',
        TOOLGATE_RATE_LIMIT_PER_MINUTE: '0',
        ...natsEnv(nats.url, 'gateway'),
      },
      work,
    );
    const g = gateway;
    process.stderr.write(`bench:remote: warming up (${WARMUP} calls each)\n`);
    for (let i = 0; i < WARMUP; i++) for (const tool of ['local/echo', 'remote/echo']) await call(g, tool, { text: `warm ${i}` });

    process.stderr.write(`bench:remote: latency, ${CALLS} sequential calls each\n`);
    const samples = { local: { roundTrip: [] as number[], step: [] as number[] }, remote: { roundTrip: [] as number[], step: [] as number[] } };
    const latencyErrors: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      for (const side of i % 2 === 0 ? (['local', 'remote'] as const) : (['remote', 'local'] as const)) {
        const result = await call(g, `${side}/echo`, { text: `call ${i}` });
        if (result.error) latencyErrors.push(`${side}: ${result.error}`);
        else {
          samples[side].roundTrip.push(result.roundTripMs);
          samples[side].step.push(result.stepMs);
        }
      }
    }
    const local = { roundTrip: summary(samples.local.roundTrip), step: summary(samples.local.step) };
    const remote = { roundTrip: summary(samples.remote.roundTrip), step: summary(samples.remote.step) };

    // Phases 1 worker → 2 workers → 1 worker again: the mean of the two 1-worker phases cancels the drift of a warming process.
    const loads = [
      { label: 'echo', tool: 'echo', args: { text: 'x' } },
      { label: `work${WORK_MS}ms`, tool: 'work', args: { ms: WORK_MS } },
    ];
    const phase = async (name: string) => {
      const figures: Record<string, Awaited<ReturnType<typeof closedLoop>> & { callsByWorker: Record<string, number> }> = {};
      for (const load of loads) {
        process.stderr.write(`bench:remote: throughput of ${load.label}, ${name}\n`);
        const before = acceptedBy(workers, `remote/${load.tool}`);
        const run = await closedLoop(g, `remote/${load.tool}`, load.args);
        const after = acceptedBy(workers, `remote/${load.tool}`);
        figures[load.label] = { ...run, callsByWorker: Object.fromEntries(workers.map((w) => [w.id, after[w.id] - (before[w.id] ?? 0)])) };
      }
      return figures;
    };
    const waitForWorkers = async (count: number) => {
      for (const deadline = Date.now() + 30_000; (await liveWorkers(g, 'remote/work')) !== count; await new Promise((r) => setTimeout(r, 200))) {
        if (Date.now() > deadline) throw new Error(`the gateway did not see ${count} live workers within 30 s`);
      }
    };
    const localLoads: Record<string, Awaited<ReturnType<typeof closedLoop>>> = {};
    for (const load of loads) {
      process.stderr.write(`bench:remote: throughput of ${load.label}, plugin worker threads in the gateway\n`);
      localLoads[load.label] = await closedLoop(g, `local/${load.tool}`, load.args);
    }
    const oneBefore = await phase('1 worker');
    workers.push(await startWorker('w2', workerEnv));
    await waitForWorkers(2);
    const two = await phase('2 workers');
    await (workers.pop() as RunningWorker).kill();
    await waitForWorkers(1);
    const oneAfter = await phase('1 worker again');
    const throughput = Object.fromEntries(
      loads.map(({ label }) => {
        const oneWorkerCallsPerSecond = round((oneBefore[label].callsPerSecond + oneAfter[label].callsPerSecond) / 2);
        return [
          label,
          {
            local: localLoads[label],
            oneWorker: oneBefore[label],
            twoWorkers: two[label],
            oneWorkerAgain: oneAfter[label],
            twoOverOneWorker: round(two[label].callsPerSecond / oneWorkerCallsPerSecond),
            oneWorkerOverLocal: round(oneWorkerCallsPerSecond / localLoads[label].callsPerSecond),
          },
        ];
      }),
    );

    const result = {
      bench: 'remote',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      settings: { calls: CALLS, warmup: WARMUP, concurrency: CONCURRENCY, seconds: SECONDS, workMs: WORK_MS, workerLogLevel: 'debug (the tests read its call log)' },
      latency: {
        local,
        remote,
        ratioRoundTripP50: round(remote.roundTrip.p50Ms / local.roundTrip.p50Ms),
        ratioRoundTripP95: round(remote.roundTrip.p95Ms / local.roundTrip.p95Ms),
        ratioStepP50: round(remote.step.p50Ms / local.step.p50Ms),
        ratioStepP95: round(remote.step.p95Ms / local.step.p95Ms),
        addedStepP50Ms: round(remote.step.p50Ms - local.step.p50Ms),
        errors: latencyErrors,
      },
      throughput,
    };
    const json = JSON.stringify(result, null, 2);
    process.stdout.write(`${json}\n`);
    const out = join(REPO_ROOT, 'bench', 'remote', 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${result.date.slice(0, 10)}-remote.json`), `${json}\n`);
  } finally {
    await gateway?.stop();
    await Promise.all(workers.map((w) => w.kill()));
    await nats.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:remote failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
