import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { BM25_ONLY, graphql, REPO_ROOT, type RunningGateway, runCli, startGateway } from '../support/gateway-process';
import { CLIENT_KINDS, type ClientKind, clientTracker, connectHttp, connectStdio, type McpTestClient, mcpUrlOf, textJson } from '../support/mcp-clients';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';

/**
 * Toolgate as an MCP server (issue 14, part C), against the built gateway: Streamable HTTP at /mcp
 * and `toolgate mcp serve` over stdio, each with the official clients of both eras (v1 SDK: 2025-11-25;
 * v2 SDK pinned to 2026-07-28 and negotiating). Each lists the meta-tools, finds the calculator with
 * search_tools, reads it with describe_tool, runs it with call_tool; a destructive tool answers
 * PENDING_APPROVAL; progress reports the run and aborting the call cancels it.
 */

const KEY = 'mcp-operator-key-000001';
const POLICY = `
roles:
  operator:
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - key: ${KEY}
    tenant: acme
    subject: alice
    roles: [operator]
`;

const SLOW_TOOLS = `
const base = (name, extra) => ({
  name, title: 'Slow ' + name, description: 'MCP fixture ' + name + ' for cancellation and approval tests; never for real work.',
  category: ['testing'], tags: ['fixture'], examples: [],
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, label: { type: 'string' } }, additionalProperties: false },
  outputSchema: { type: 'object' },
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 60000, maxConcurrency: 8, retries: 0, idempotent: true },
  execution: 'server',
  ...extra,
});
const nap = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true }); });
exports.tools = [
  base('nap', { run: async (args, ctx) => { await nap(args.ms || 0, ctx.signal); return { slept: args.ms || 0 }; } }),
  base('erase', { permissions: { scopes: [], risk: 'destructive' }, run: async (args) => ({ erased: args.label || '' }) }),
];
`;

const META_TOOLS = ['call_tool', 'describe_tool', 'run_task', 'search_tools'];
const RUN = 'query($id: ID!) { run(id: $id) { id status steps { id status error { code } } } }';

describe('Toolgate as an MCP server', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-mcp-serve-'));
  const pluginDir = join(work, 'plugins');
  writePlugin(pluginDir, { folder: 'slow', packageJson: pluginPackage('@fixtures/slow', '1.0.0'), entry: SLOW_TOOLS });
  const policyFile = join(work, 'toolgate.config.yaml');
  writeFileSync(policyFile, POLICY);
  const env = (dataDir: string) => ({
    ...BM25_ONLY,
    TOOLGATE_DATA_DIR: join(work, dataDir),
    TOOLGATE_PLUGIN_DIRS: [join(REPO_ROOT, 'plugins'), pluginDir].join(delimiter),
    TOOLGATE_CONFIG: policyFile,
  });
  /** What an MCP client config gives the command: nothing of this process's environment but PATH and HOME. */
  const stdioEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work, LOG_LEVEL: 'warn', ...env('stdio-data') };
  let gateway: RunningGateway;
  const { open, closeAll } = clientTracker();

  beforeAll(async () => {
    gateway = await startGateway({ ...env('http-data'), HOST: '127.0.0.1' });
  });

  afterEach(async () => {
    await closeAll();
  });

  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** The whole progressive-disclosure path, the same for every client and transport. */
  async function discloseAndCall(client: McpTestClient): Promise<void> {
    const tools = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(META_TOOLS);
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: 'object' });

    const search = await client.call('search_tools', { query: 'evaluate a math expression', k: 3 });
    expect(search.isError).toBeFalsy();
    const hits = (search.structuredContent as { hits: { id: string; title: string; description: string; score: number }[] }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]).toMatchObject({ id: 'calculator/evaluate', title: expect.any(String), score: expect.any(Number) });
    expect(hits[0].description).not.toContain('\n');
    expect(textJson(search)).toEqual(search.structuredContent);

    const described = await client.call('describe_tool', { id: hits[0].id });
    expect(described.structuredContent).toMatchObject({ id: 'calculator/evaluate', risk: 'read', requiresApproval: false, inputSchema: { type: 'object', required: ['expression'] } });
    expect((described.structuredContent as { examples: unknown[] }).examples.length).toBeGreaterThan(0);

    const called = await client.call('call_tool', { id: 'calculator/evaluate', arguments: { expression: '2 + 3 * 4' } });
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toMatchObject({ status: 'SUCCEEDED', tool: expect.stringMatching(/^calculator\/evaluate@/), output: { result: 14 }, runId: expect.any(String) });
    expect(textJson(called)).toEqual(called.structuredContent);

    const invalid = await client.call('call_tool', { id: 'calculator/evaluate', arguments: { expr: '2' } });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    const paths = (invalid.structuredContent as { error: { details: { path: string }[] } }).error.details.map((d) => d.path).sort();
    expect(paths).toEqual(['/arguments', '/arguments/expr']);

    const destructive = await client.call('call_tool', { id: 'slow/erase', arguments: { label: 'old' } });
    expect(destructive.isError).toBeFalsy();
    expect(destructive.structuredContent).toMatchObject({ status: 'PENDING_APPROVAL', runId: expect.any(String), approval: { stepId: 'call', tool: 'slow/erase@1.0.0' } });
    expect(destructive.content[0].text).toMatch(/^PENDING_APPROVAL: .*approveStep/);
  }

  describe.each(CLIENT_KINDS)('Streamable HTTP with the %s client', (kind: ClientKind) => {
    it('lists the meta-tools, finds, describes and calls the calculator, and waits for approval of a destructive tool', async () => {
      const client = await open(connectHttp(kind, mcpUrlOf(gateway.url), KEY));
      expect(client.protocolVersion).toBe(kind === 'v1' ? '2025-11-25' : '2026-07-28');
      await discloseAndCall(client);
    });

    it('reports progress with the run id, and aborting the call cancels the run', async () => {
      const client = await open(connectHttp(kind, mcpUrlOf(gateway.url), KEY));
      const abort = new AbortController();
      let runId: string | undefined;
      const call = client.call(
        'call_tool',
        { id: 'slow/nap', arguments: { ms: 60_000 } },
        {
          signal: abort.signal,
          onprogress: ({ message }) => {
            runId ??= /^run (\S+) started/.exec(message ?? '')?.[1];
            if (runId) abort.abort();
          },
        },
      );
      await expect(call).rejects.toThrow(/abort/i);
      expect(runId).toEqual(expect.any(String));
      // The run ends CANCELLED on the server, as cancelRun would leave it.
      const deadline = Date.now() + 20_000;
      let status: string | undefined;
      while (Date.now() < deadline) {
        status = (await graphql<{ run: { status: string } | null }>(gateway.url, RUN, { key: KEY, variables: { id: runId } })).data?.run?.status;
        if (status === 'CANCELLED') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe('CANCELLED');
    });
  });

  it('negotiates a different protocol version for each era over HTTP', async () => {
    const versions = await Promise.all(CLIENT_KINDS.map(async (kind) => (await open(connectHttp(kind, mcpUrlOf(gateway.url), KEY))).protocolVersion));
    expect(versions).toEqual(['2025-11-25', '2026-07-28', '2026-07-28']);
  });

  describe.each(CLIENT_KINDS)('stdio (toolgate mcp serve) with the %s client', (kind: ClientKind) => {
    it('lists the meta-tools, finds, describes and calls the calculator, and waits for approval of a destructive tool', async () => {
      const client = await open(connectStdio(kind, stdioEnv, ['--key', KEY]));
      expect(client.protocolVersion).toBe(kind === 'v1' ? '2025-11-25' : '2026-07-28');
      await discloseAndCall(client);
    });
  });

  it('takes the key from $TOOLGATE_API_KEY over stdio', async () => {
    const client = await open(connectStdio('v1', { ...stdioEnv, TOOLGATE_API_KEY: KEY }));
    const called = await client.call('call_tool', { id: 'calculator/evaluate', arguments: { expression: '6 * 7' } });
    expect(called.structuredContent).toMatchObject({ status: 'SUCCEEDED', output: { result: 42 } });
  });

  it('writes nothing but JSON-RPC to stdout over stdio, even with logs at debug, and answers bad lines without closing', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'apps', 'gateway', 'bin', 'toolgate.js'), 'mcp', 'serve', '--key', KEY], {
      cwd: REPO_ROOT,
      env: { ...stdioEnv, LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.split('\n').filter((line) => line.includes('"id":3')).length > 0) resolve();
      }),
    );
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    // What a broken or hostile client writes: a line that is not JSON, JSON that is not JSON-RPC, and a
    // message over TOOLGATE_MAX_BODY_BYTES (16 MiB). Each is answered; the connection stays open.
    child.stdin.write('{"jsonrpc":"2.0","id":5,"method":\n');
    send({ id: 6, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search_tools', arguments: { query: 'x'.repeat(17 * 1024 * 1024) } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'call_tool', arguments: { id: 'calculator/evaluate', arguments: { expression: '1 + 1' } } } });
    await answered;
    child.stdin.end();
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const lines = stdout.split('\n').filter((line) => line !== '');
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number | null; error?: { code: number } });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.find((m) => m.id === 2)?.error?.code).toBe(-32601);
    expect(messages.filter((m) => m.error?.code === -32700)).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ message: expect.stringMatching(/not valid JSON/) }) }]);
    expect(messages.find((m) => m.id === 6)?.error?.code).toBe(-32600);
    expect(messages.find((m) => m.id === 4)).toMatchObject({ error: { code: -32000, message: expect.stringContaining('TOOLGATE_MAX_BODY_BYTES'), data: { code: 'INVALID_ARGUMENTS' } } });
    expect(messages.find((m) => m.id === 3)).toMatchObject({ result: { structuredContent: { status: 'SUCCEEDED' } } });
    // The logs went to stderr instead (debug level: the boot is there).
    expect(stderr).toContain('"msg":"serving MCP over stdio"');
    expect(exitCode).toBe(0);
  });

  it('refuses to serve stdio without a key, or with an unknown one, naming --key and $TOOLGATE_API_KEY', () => {
    const missing = runCli(['mcp', 'serve'], env('stdio-data'));
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/UNAUTHENTICATED: .*--key.*\$TOOLGATE_API_KEY/);
    expect(missing.stdout).toBe('');
    const unknown = runCli(['mcp', 'serve', '--key', 'made-up-key-0000000000'], env('stdio-data'));
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/UNAUTHENTICATED: .*--key.*\$TOOLGATE_API_KEY.*unknown/);
    expect(unknown.stdout).toBe('');
  });
});
