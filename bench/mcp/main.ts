/**
 * MCP through Toolgate vs straight to the server (issue 14), all on 127.0.0.1 with real parts: the
 * reference server (server-everything) over Streamable HTTP, the built gateway importing it, and the
 * official v1 SDK client on both sides.
 * - call: `call_tool {id: everything/echo}` on Toolgate's /mcp vs `echo` on the server's own /mcp
 *   (same client, sequential, after a warm-up); ratios at p50 and p95, and the added milliseconds;
 *   the same call as a GraphQL `executePlan` shows how much of it is the MCP front, and the same call
 *   through a pass-through proxy (passthrough.ts) what the extra hop costs by itself.
 * - call50ms: the same four ways for a tool that works 50 ms (server-everything's long-running
 *   operation, one step), the cost of the hops next to real work.
 * - search: `search_tools` over MCP vs `searchTools` over GraphQL, same queries.
 * Prints one JSON object and keeps it in bench/mcp/results/. Usage: npm run bench:mcp [-- --calls 300]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile } from '@toolgate/retrieval/evaluation';

const ROOT = join(__dirname, '..', '..', '..');
const KEY = 'bench-mcp-key-000000001';
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const CALLS = option('calls', 300);
const WARMUP = option('warmup', 30);
const SEARCHES = option('searches', 150);
const WORK_CALLS = option('work-calls', 60);

type ToolResult = { isError?: boolean; content?: unknown };
const round = (n: number) => Math.round(n * 100) / 100;
const ratio = (a: number, b: number) => round(a / b);

const QUERIES = [
  'echo back my message',
  'add two numbers',
  'convert 10 miles to kilometers',
  'what time is it in Tokyo',
  'render a bar chart',
  'convert 100 USD to EUR',
  'count the words in a text',
  'read a file',
  'structured weather for a city',
  'a tiny image',
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${ms} ms`);
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: samples.length,
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}

async function connect(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} } }));
  return client;
}

async function timed(times: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await work(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

function assertOk(result: ToolResult, what: string): void {
  if (result.isError) throw new Error(`${what} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), 'toolgate-bench-mcp-'));
  try {
    const serverPort = await freePort();
    const everything = spawn(process.execPath, [join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
      env: { ...process.env, PORT: String(serverPort) },
      stdio: 'ignore',
    });
    children.push(everything);
    const serverUrl = `http://127.0.0.1:${serverPort}/mcp`;
    await until(async () => (await fetch(serverUrl)).status > 0, 'server-everything');

    const policy = join(work, 'toolgate.config.yaml');
    writeFileSync(
      policy,
      `roles:
  bench:
    admin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - { key: ${KEY}, tenant: bench, subject: bench, roles: [bench] }
mcpServers:
  everything:
    url: ${serverUrl}
`,
    );
    const gatewayPort = await freePort();
    const gateway = spawn(process.execPath, [join(ROOT, 'apps/gateway/bin/toolgate.js'), 'serve'], {
      cwd: work,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(gatewayPort),
        HOST: '127.0.0.1',
        TOOLGATE_CONFIG: policy,
        TOOLGATE_DATA_DIR: join(work, 'data'),
        TOOLGATE_PLUGIN_DIRS: join(ROOT, 'plugins'),
        TOOLGATE_EMBEDDER: 'none',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    children.push(gateway);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await until(async () => (await fetch(`${base}/health/ready`)).status === 200, 'gateway', 180_000);

    const passthroughPort = await freePort();
    const passthrough = spawn(process.execPath, [join(__dirname, 'passthrough.js'), String(passthroughPort), serverUrl], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(passthrough);
    const passthroughUrl = `http://127.0.0.1:${passthroughPort}/mcp`;
    await until(async () => (await fetch(passthroughUrl)).status > 0, 'pass-through proxy');

    const direct = await connect(serverUrl);
    const viaPassthrough = await connect(passthroughUrl);
    const viaToolgate = await connect(`${base}/mcp`, KEY);
    const callThrough = async (client: Client, name: string, args: Record<string, unknown>) => assertOk((await client.callTool({ name, arguments: args })) as ToolResult, name);
    const viaToolgateCall = async (id: string, args: Record<string, unknown>) => {
      const result = (await viaToolgate.callTool({ name: 'call_tool', arguments: { id: `everything/${id}`, arguments: args } })) as ToolResult;
      assertOk(result, 'call_tool');
    };
    // The same call as a GraphQL executePlan: splits Toolgate's share into its MCP front and its executor.
    const graphqlCall = async (id: string, args: Record<string, unknown>) => {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({
          query: 'mutation($t: String!, $a: JSON!) { executePlan(plan: { steps: [{ id: "call", tool: $t, arguments: $a }] }) { status } }',
          variables: { t: `everything/${id}`, a: args },
        }),
      });
      const body = (await response.json()) as { errors?: unknown; data?: { executePlan: { status: string } } };
      if (body.errors || body.data?.executePlan.status !== 'SUCCEEDED') throw new Error(`executePlan failed: ${JSON.stringify(body).slice(0, 300)}`);
    };
    /** One tool called every way, after a warm-up, interleaved in rounds so a slow phase of the machine falls on every side. */
    const measure = async (tool: string, argsOf: (i: number) => Record<string, unknown>, calls: number, warmup: number) => {
      const sides = {
        direct: (i: number) => callThrough(direct, tool, argsOf(i)),
        viaPassthrough: (i: number) => callThrough(viaPassthrough, tool, argsOf(i)),
        viaToolgate: (i: number) => viaToolgateCall(tool, argsOf(i)),
        executePlanOverGraphql: (i: number) => graphqlCall(tool, argsOf(i)),
      };
      type Side = keyof typeof sides;
      for (const side of Object.values(sides)) await timed(warmup, side);
      const samples: Record<Side, number[]> = { direct: [], viaPassthrough: [], viaToolgate: [], executePlanOverGraphql: [] };
      const rounds = 6;
      for (let round = 0; round < rounds; round++) {
        for (const [name, side] of Object.entries(sides) as [Side, (i: number) => Promise<unknown>][]) samples[name].push(...(await timed(Math.ceil(calls / rounds), side)));
      }
      const by = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)])) as Record<Side, ReturnType<typeof summary>>;
      return {
        tool,
        ...by,
        ratioP50: ratio(by.viaToolgate.p50Ms, by.direct.p50Ms),
        ratioP95: ratio(by.viaToolgate.p95Ms, by.direct.p95Ms),
        addedP50Ms: round(by.viaToolgate.p50Ms - by.direct.p50Ms),
        // The extra hop alone (a pass-through proxy of the same SDK parts), and Toolgate's own share above it.
        passthroughRatioP50: ratio(by.viaPassthrough.p50Ms, by.direct.p50Ms),
        passthroughRatioP95: ratio(by.viaPassthrough.p95Ms, by.direct.p95Ms),
        toolgateOverPassthroughP50Ms: round(by.viaToolgate.p50Ms - by.viaPassthrough.p50Ms),
      };
    };
    const call = await measure('echo', (i) => ({ message: `m${i}` }), CALLS, WARMUP);
    // A tool that works for 50 ms (one timer on the server): what the same hops cost next to real work.
    const call50ms = await measure('trigger-long-running-operation', () => ({ duration: 0.05, steps: 1 }), WORK_CALLS, 5);

    const graphqlSearch = async (i: number) => {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ query: 'query($q: String!) { searchTools(input: { query: $q, k: 8 }) { tool { id } score } }', variables: { q: QUERIES[i % QUERIES.length] } }),
      });
      const body = (await response.json()) as { errors?: unknown };
      if (body.errors) throw new Error(`searchTools failed: ${JSON.stringify(body.errors).slice(0, 300)}`);
    };
    const mcpSearch = async (i: number) => {
      const result = (await viaToolgate.callTool({ name: 'search_tools', arguments: { query: QUERIES[i % QUERIES.length], k: 8 } })) as ToolResult;
      assertOk(result, 'search_tools');
    };
    await timed(WARMUP, graphqlSearch);
    await timed(WARMUP, mcpSearch);
    const graphqlSamples = [...(await timed(SEARCHES / 2, graphqlSearch))];
    const mcpSamples = [...(await timed(SEARCHES / 2, mcpSearch))];
    graphqlSamples.push(...(await timed(SEARCHES / 2, graphqlSearch)));
    mcpSamples.push(...(await timed(SEARCHES / 2, mcpSearch)));
    await direct.close();
    await viaPassthrough.close();
    await viaToolgate.close();

    const search = { graphql: summary(graphqlSamples), mcp: summary(mcpSamples) };
    const result = {
      bench: 'mcp',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      settings: {
        calls: CALLS,
        workCalls: WORK_CALLS,
        warmup: WARMUP,
        searches: SEARCHES,
        server: 'server-everything (Streamable HTTP)',
        client: '@modelcontextprotocol/sdk v1, sequential',
        embedder: 'none (BM25)',
      },
      call,
      call50ms,
      search: { ...search, ratioP50: ratio(search.mcp.p50Ms, search.graphql.p50Ms), ratioP95: ratio(search.mcp.p95Ms, search.graphql.p95Ms) },
    };
    const text = JSON.stringify(result, null, 2);
    process.stdout.write(`${text}\n`);
    const out = join(ROOT, 'bench/mcp/results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${result.date.slice(0, 10)}-mcp.json`), `${text}\n`);
  } finally {
    for (const child of children) child.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
