/**
 * Load run against the built server on 127.0.0.1 with two tenants (issue 10): 50 connections for
 * 30 s of `searchTools` with distinct queries, then, on a fresh server, 50 connections for 30 s of
 * `runTask`, then a learning burst (`learningBurst`). Prints one JSON object (req/s, p50/p99, errors,
 * RSS before/after, breakers opened, the burst's index syncs) and keeps it in bench/load/results/.
 * Usage: npm run bench:load [-- --duration 30 --connections 50 --bm25 --learning-only]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const ROOT = join(__dirname, '..', '..', '..');
const KEYS = { acme: 'acme-bench-key-00000001', globex: 'globex-bench-key-000001', platform: 'platform-bench-key-0001' };
const POLICY = `
roles:
  analyst:
    grants:
      - tools: "{units,calculator,currency,datetime,text,table,chart}/*"
        actions: [discover, execute]
        maxRisk: read
  platform:
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - { key: ${KEYS.acme}, tenant: acme, subject: bench-a, roles: [analyst] }
  - { key: ${KEYS.globex}, tenant: globex, subject: bench-g, roles: [analyst] }
  - { key: ${KEYS.platform}, tenant: platform, subject: ops, roles: [platform] }
`;

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const DURATION_S = option('duration', 30);
const CONNECTIONS = option('connections', 50);
const BM25_ONLY = args.includes('--bm25');
/** Only the learning phase (printed, not kept): for comparing index-sync changes quickly. */
const LEARNING_ONLY = args.includes('--learning-only');

/** Phrasings × subjects: every request asks something a little different, so nothing is answered from one cached query. */
const VERBS = ['convert', 'how many', 'calculate', 'what is', 'turn', 'express', 'compute', 'change', 'show', 'find'];
const SUBJECTS = [
  '5 km in miles',
  '20 celsius to fahrenheit',
  '3.5 kg in pounds',
  '100 usd in euro',
  'the square root of 1764',
  '12 feet in meters',
  'the day of the week of 2030-01-01',
  'word count of a text',
  'mean of a csv column',
  '2 hours in seconds',
];
/** Tasks the default planner turns into a plan without a question (what the phase measures is the whole run path). */
const TASKS = ['convert 5 km to miles', 'convert 20 celsius to fahrenheit', 'calculate 17 * 23', 'convert 3 kg to pounds', 'convert 100 usd to eur', 'convert 12 feet to meters'];

interface Server {
  url: string;
  pid: number;
  /** 'tool index synced' lines the server has logged so far. */
  syncs(): number;
  stop(): Promise<void>;
}

function serverEnv(work: string): NodeJS.ProcessEnv {
  const policyFile = join(work, 'toolgate.config.yaml');
  writeFileSync(policyFile, POLICY);
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.TOOLGATE_MODEL_DIR ? { TOOLGATE_MODEL_DIR: process.env.TOOLGATE_MODEL_DIR } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    // info: the listening line carries the URL; later lines are drained and dropped.
    LOG_LEVEL: 'info',
    TOOLGATE_DATA_DIR: join(work, 'data'),
    TOOLGATE_PLUGIN_DIRS: join(ROOT, 'plugins'),
    TOOLGATE_CONFIG: policyFile,
    // The benchmark measures throughput, not the per-principal budget that would (rightly) throttle it.
    TOOLGATE_RATE_LIMIT_PER_MINUTE: '0',
    ...(BM25_ONLY ? { TOOLGATE_EMBEDDER: 'none' } : {}),
  };
}

async function startServer(work: string): Promise<Server> {
  const env = serverEnv(work);
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'apps', 'gateway', 'bin', 'toolgate.js'), 'serve'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let syncs = 0;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not up within 120 s:\n${output}`)), 120_000);
    let listening = false;
    const onData = (chunk: Buffer) => {
      syncs += chunk.toString().split('tool index synced').length - 1;
      if (listening) return;
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('Toolgate listening'));
      if (line) {
        listening = true;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
  });
  for (let ready = 0; ready !== 200; ) {
    ready = await fetch(url.replace(/\/graphql$/, '/health/ready')).then(
      (r) => r.status,
      () => 0,
    );
    if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid as number,
    syncs: () => syncs,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident memory of the server process and its worker processes (the workers are where tool code runs). */
function rssMb(pid: number): { server: number; workers: number; workerProcesses: number } {
  const rssOf = (p: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const children = (p: number): number[] => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const workers = children(pid).flatMap((c) => [c, ...children(c)]);
  return { server: Math.round(rssOf(pid)), workers: Math.round(workers.reduce((sum, p) => sum + rssOf(p), 0)), workerProcesses: workers.length };
}

async function graphql<T>(url: string, key: string, query: string): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query }) });
  return ((await response.json()) as { data: T }).data;
}

/** Breakers that are not CLOSED, as the platform admin sees them after the run. */
async function openBreakers(url: string): Promise<string[]> {
  type Report = { toolHealth: { toolId: string; version: string; breaker: { state: string; shared: string } | null }[] };
  const report = await graphql<Report>(url, KEYS.platform, '{ toolHealth { toolId version breaker { state shared } } }');
  return (report?.toolHealth ?? []).filter((r) => r.breaker && (r.breaker.state !== 'CLOSED' || r.breaker.shared !== 'CLOSED')).map((r) => `${r.toolId}@${r.version}`);
}

async function load(url: string, name: string, body: (n: number) => { key: string; query: string; variables?: Record<string, unknown> }) {
  let sequence = 0;
  let graphqlErrors = 0;
  const errorCodes: Record<string, number> = {};
  const firstMessages: Record<string, string> = {};
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const next = body(sequence++);
          return { ...request, headers: { 'content-type': 'application/json', authorization: `Bearer ${next.key}` }, body: JSON.stringify({ query: next.query, variables: next.variables }) };
        },
        onResponse: (_status, responseBody) => {
          if (!responseBody.includes('"errors"')) return;
          graphqlErrors++;
          const code = /"code":"([A-Z_]+)"/.exec(responseBody)?.[1] ?? 'unknown';
          errorCodes[code] = (errorCodes[code] ?? 0) + 1;
          firstMessages[code] ??= (/"message":"((?:[^"\\]|\\.)*)"/.exec(responseBody)?.[1] ?? '').slice(0, 200);
        },
      },
    ],
  });
  return {
    phase: name,
    requests: result.requests.total,
    reqPerSec: result.requests.average,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    transportErrors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    graphqlErrors,
    errorCodes,
    firstMessages,
  };
}

/**
 * What a fresh process per call would cost (the alternative to per-tenant worker pools): starting a
 * process and loading each bundled plugin in it, the same bounded import the registry performs.
 */
async function freshProcessCost(): Promise<Record<string, number>> {
  const { discoverPluginPackages, loadPlugin } = require(join(ROOT, 'libs', 'registry', 'dist', 'index.js')) as typeof import('@toolgate/registry');
  const costs: Record<string, number> = {};
  for (const discovered of await discoverPluginPackages([join(ROOT, 'plugins')])) {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await loadPlugin(discovered);
      runs.push(performance.now() - started);
    }
    costs[String(discovered.packageJson.name)] = Math.round(runs.sort((a, b) => a - b)[1]);
  }
  return costs;
}

/** The learning phase: a catalog that has learned a lot (so each index sync has work), then a burst of runs that each teach it more. */
const LEARNED_EXAMPLES = 20_000;
const LEARNING_RUNS = 30;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * On a fresh server holding LEARNED_EXAMPLES imported usage examples, LEARNING_RUNS concurrent runTask
 * calls that each learn a new example: how many index syncs they cost, how long the index takes to
 * settle after them, and what one caller's searchTools meanwhile sees.
 */
async function learningBurst(work: string) {
  const file = join(work, 'examples.jsonl');
  const tools = ['units/convert', 'currency/convert', 'calculator/evaluate', 'datetime/resolve-date'];
  const examples = Array.from({ length: LEARNED_EXAMPLES }, (_, i) =>
    JSON.stringify({ query: `past request ${i}: ${VERBS[i % VERBS.length]} ${SUBJECTS[i % SUBJECTS.length]}`, tool: tools[i % tools.length] }),
  );
  writeFileSync(file, examples.join('\n'));
  execFileSync(process.execPath, [join(ROOT, 'apps', 'gateway', 'bin', 'toolgate.js'), 'examples', 'import', file, '--json', '--key', KEYS.platform], {
    cwd: work,
    env: serverEnv(work),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const server = await startServer(work);
  try {
    const syncsBefore = server.syncs();
    const started = performance.now();
    let searching = true;
    const searchMs: number[] = [];
    const searcher = (async () => {
      while (searching) {
        const at = performance.now();
        await graphql(server.url, KEYS.acme, '{ searchTools(input: { query: "convert miles to km", k: 3 }) { tool { id } } }').catch(() => undefined);
        searchMs.push(performance.now() - at);
        await sleep(100);
      }
    })();
    type Ran = { runTask: { status: string } } | undefined;
    const runs = await Promise.all(
      Array.from({ length: LEARNING_RUNS }, (_, i) =>
        // A run the server dropped (connection reset) counts as not succeeded; the phase goes on.
        graphql<Ran>(server.url, i % 2 ? KEYS.acme : KEYS.globex, `mutation { runTask(task: { text: ${JSON.stringify(`convert ${i + 2} miles to kilometers`)} }) { status } }`).catch(() => undefined),
      ),
    );
    const runsDoneMs = performance.now() - started;
    // Settled: no index sync for 2 s.
    let seen = server.syncs();
    let lastSyncAt = performance.now();
    while (performance.now() - lastSyncAt < 2000) {
      await sleep(50);
      if (server.syncs() !== seen) {
        seen = server.syncs();
        lastSyncAt = performance.now();
      }
    }
    searching = false;
    await searcher;
    searchMs.sort((a, b) => a - b);
    return {
      examples: LEARNED_EXAMPLES,
      runs: LEARNING_RUNS,
      succeeded: runs.filter((r) => r?.runTask.status === 'SUCCEEDED').length,
      runsDoneMs: Math.round(runsDoneMs),
      indexSyncs: seen - syncsBefore,
      settledAfterRunsMs: Math.max(0, Math.round(lastSyncAt - started - runsDoneMs)),
      searchMs: { n: searchMs.length, p50: Math.round(searchMs[searchMs.length >> 1]), max: Math.round(searchMs[searchMs.length - 1]) },
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-load-'));
  const phases = [];
  let learning: Awaited<ReturnType<typeof learningBurst>> | undefined;
  try {
    for (const phase of LEARNING_ONLY ? [] : (['searchTools', 'runTask'] as const)) {
      const dir = join(work, phase);
      mkdirSync(dir, { recursive: true });
      const server = await startServer(dir);
      try {
        const before = rssMb(server.pid);
        const measured =
          phase === 'searchTools'
            ? await load(server.url, phase, (n) => ({
                key: n % 2 ? KEYS.acme : KEYS.globex,
                query: 'query($q: String!) { searchTools(input: { query: $q, k: 5 }) { tool { id } score } }',
                variables: { q: `${VERBS[n % VERBS.length]} ${SUBJECTS[Math.floor(n / VERBS.length) % SUBJECTS.length]} #${n}` },
              }))
            : await load(server.url, phase, (n) => ({
                key: n % 2 ? KEYS.acme : KEYS.globex,
                query: 'mutation($t: String!) { runTask(task: { text: $t }) { status } }',
                variables: { t: TASKS[n % TASKS.length] },
              }));
        const after = rssMb(server.pid);
        phases.push({ ...measured, rssMb: { before, after }, breakersOpened: await openBreakers(server.url) });
      } finally {
        await server.stop();
      }
    }
    const dir = join(work, 'learning');
    mkdirSync(dir, { recursive: true });
    learning = await learningBurst(dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (LEARNING_ONLY) {
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), learning })}\n`);
    return;
  }
  const freshProcessPerCallMs = await freshProcessCost();
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    embedder: BM25_ONLY ? 'none (BM25 only)' : 'default',
    phases,
    learning,
    freshProcessPerCallMs,
  };
  const out = join(ROOT, 'bench', 'load', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${result.date.slice(0, 10)}-load.json`), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
