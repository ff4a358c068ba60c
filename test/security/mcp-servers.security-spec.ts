import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codesOf, graphql, REPO_ROOT } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from './support/two-tenants';

/**
 * MCP servers are untrusted tool code. A server that crashes at start, hangs in the handshake, lists
 * 5,000 tools, sends schemas outside the subset or answers with a flood is FAILED or refused with the
 * reason; the gateway and the other servers keep serving. A stdio server gets only the environment
 * it was given, never the gateway's secrets.
 */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURE = join(REPO_ROOT, 'test/support/mcp-fixture.server.js');
const GATEWAY_SECRET = 'gateway-only-secret-value-1234';
const URL_PASSWORD = 'url-password-7f3a9c';
const QUERY_TOKEN = 'query-token-51be0d2a';
const HEADER_TOKEN = 'header-token-c0ffee99';
/** Marks this run's hanging servers, so the count sees no process of another run. */
const RUN_TAG = `run-${process.pid}-${Date.now()}`;

const SERVERS = `query { mcpServers { name state toolCount refusedTools { path message } lastError } }`;
const EXECUTE = `mutation($plan: PlanInput!) { executePlan(plan: $plan) { status steps { status output error { code message } } } }`;

interface ServerView {
  name: string;
  state: string;
  toolCount: number;
  refusedTools: { path: string; message: string }[];
  lastError: string | null;
}

const fixture = (mode: string, extra = '') => `
    command: ${process.execPath}
    args: [${JSON.stringify(FIXTURE)}]
    env: { MCP_FIXTURE_MODE: ${mode}${extra} }`;

describe('hostile MCP servers', () => {
  let server: TwoTenantServer;
  let toolsFile: string;
  let policy: string;

  const servers = async () => Object.fromEntries(((await graphql<{ mcpServers: ServerView[] }>(server.url, SERVERS, { key: KEYS.platformAdmin })).data?.mcpServers ?? []).map((s) => [s.name, s]));
  const run = (steps: unknown[]) =>
    graphql<{ executePlan: { status: string; steps: { status: string; output: unknown; error: { code: string; message: string } | null }[] } }>(server.url, EXECUTE, {
      key: KEYS.acmeAdmin,
      variables: { plan: { steps } },
    });

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), 'toolgate-mcp-hostile-'));
    toolsFile = join(work, 'tools.json');
    writeFileSync(
      toolsFile,
      JSON.stringify([
        { name: 'fine', description: 'A tool whose schema is within the subset.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { destructiveHint: false } },
        { name: 'conditional', description: 'A tool whose schema uses if/then.', inputSchema: JSON.parse('{"type":"object","if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]}}') },
        { name: 'deep', description: 'A tool whose schema nests forty levels.', inputSchema: JSON.parse(`${'{"type":"object","properties":{"x":'.repeat(40)}{"type":"string"}${'}}'.repeat(40)}`) },
        { name: 'alien', description: 'A tool whose schema has an unknown type.', inputSchema: { type: 'object', properties: { a: { type: 'quantum' } } } },
      ]),
    );
    policy = `${TWO_TENANT_POLICY}
mcpServers:
  everything:
    command: ${process.execPath}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
    env: { DECLARED_FOR_SERVER: "declared-value" }
  leaky:
    url: http://127.0.0.1:9/mcp?api_key=${QUERY_TOKEN}&session=${URL_PASSWORD}
    headers: { Authorization: "Bearer ${HEADER_TOKEN}" }
  crashing:${fixture('crash')}
  hanging:${fixture('hang', `, MCP_FIXTURE_RUN: ${RUN_TAG}`)}
  huge:${fixture('many')}
  endless:${fixture('endless')}
  flood:${fixture('flood')}
  schemas:${fixture('tools-file', `, MCP_FIXTURE_TOOLS: ${JSON.stringify(toolsFile)}`)}
  announcer:${fixture('tools-file', `, MCP_FIXTURE_TOOLS: ${JSON.stringify(toolsFile)}`)}
    isolation: shared
`;
    server = await startTwoTenantServer({ TOOLGATE_MCP_CONNECT_TIMEOUT_MS: '6000', GATEWAY_ONLY_SECRET: GATEWAY_SECRET }, { work, policy });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('boots and serves with every bad server FAILED and the reason named', async () => {
    const byName = await servers();
    expect(byName.everything).toMatchObject({ state: 'READY', lastError: null });
    expect(byName.crashing).toMatchObject({ state: 'FAILED', lastError: expect.stringContaining('cannot open its database') });
    expect(byName.hanging).toMatchObject({ state: 'FAILED', lastError: expect.stringMatching(/no answer in time|timed out/i) });
    expect(byName.huge).toMatchObject({ state: 'FAILED', toolCount: 0, lastError: expect.stringContaining('5000 tools') });
    expect(byName.endless).toMatchObject({ state: 'FAILED', toolCount: 0, lastError: expect.stringMatching(/pagination did not terminate/) });
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
    const echo = await run([{ id: 'a', tool: 'everything/echo', arguments: { message: 'still here' } }]);
    expect(echo.errors).toBeUndefined();
    expect(echo.data?.executePlan.status).toBe('SUCCEEDED');
  });

  it("never shows a server's secrets (query tokens, header value) in its status, errors or logs", async () => {
    const leaky = (await servers()).leaky;
    expect(leaky.state).toBe('FAILED');
    expect(leaky.lastError).toBeTruthy();
    const seen = `${JSON.stringify(await servers())}\n${server.gateway.logs()}`;
    for (const secret of [URL_PASSWORD, QUERY_TOKEN, HEADER_TOKEN]) expect(seen).not.toContain(secret);
  });

  it('stops a server that hung in the handshake before retrying it: its processes do not pile up', async () => {
    // Retries come after 1, 2, 4 s; by now some have run.
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await servers()).hanging.state).toBe('FAILED');
    const hanging = readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`MCP_FIXTURE_RUN=${RUN_TAG}`);
        } catch {
          return false;
        }
      });
    // At most the attempt in progress (and the one before it while it is being stopped).
    expect(hanging.length).toBeLessThanOrEqual(2);
  });

  it('refuses each tool whose schema is outside the subset or its bounds, naming where, and offers the rest', async () => {
    const schemas = (await servers()).schemas;
    expect(schemas.state).toBe('READY');
    expect(schemas.toolCount).toBe(1);
    const refused = schemas.refusedTools.map((r) => `${r.path} ${r.message}`).join('\n');
    expect(refused).toMatch(/\/tools\/1\/inputSchema\/if .*outside the supported/);
    expect(refused).toMatch(/\/tools\/2\/inputSchema .*deeper than 32/);
    expect(refused).toMatch(/\/tools\/3\/inputSchema\/properties\/a\/type .*quantum/);
  });

  it('an answer larger than TOOLGATE_MCP_MAX_MESSAGE_BYTES fails that call only; the gateway and other servers are unaffected', async () => {
    const flooded = await run([{ id: 'a', tool: 'flood/flood', arguments: { text: 'x' } }]);
    const step = flooded.data?.executePlan.steps[0];
    expect(step?.status).toBe('FAILED');
    expect(step?.error?.code).toMatch(/TOOL_FAILED|OUTPUT_TOO_LARGE|TIMEOUT/);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
    const echo = await run([{ id: 'a', tool: 'everything/echo', arguments: { message: 'after the flood' } }]);
    expect(echo.data?.executePlan.status).toBe('SUCCEEDED');
  });

  it("a stdio server sees the variables it was given, never the gateway's own", async () => {
    const env = await run([{ id: 'a', tool: 'everything/get-env', arguments: {} }]);
    const text = JSON.stringify(env.data?.executePlan.steps[0].output);
    expect(text).toContain('declared-value');
    expect(text).not.toContain(GATEWAY_SECRET);
    expect(text).not.toContain('TOOLGATE_CONFIG');
  });

  it("follows a server's tools/list_changed: the new tool is offered without a reload", async () => {
    writeFileSync(
      toolsFile,
      JSON.stringify([
        { name: 'fine', description: 'A tool whose schema is within the subset.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { destructiveHint: false } },
        { name: 'newcomer', description: 'A tool the server added while running.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
      ]),
    );
    const announce = await run([{ id: 'a', tool: 'announcer/fine', arguments: { text: 'announce' } }]);
    expect(announce.data?.executePlan.status).toBe('SUCCEEDED');
    const deadline = Date.now() + 15_000;
    let ids: string[] = [];
    while (Date.now() < deadline && !ids.includes('announcer/newcomer')) {
      await new Promise((r) => setTimeout(r, 300));
      ids = ((await graphql<{ tools: { id: string }[] }>(server.url, '{ tools { id } }', { key: KEYS.acmeAdmin })).data?.tools ?? []).map((t) => t.id);
    }
    expect(ids).toContain('announcer/newcomer');
    // The other server on the same file was not told, and keeps what it listed.
    expect(ids).not.toContain('schemas/newcomer');
  });

  it('a reload with a broken mcpServers section is INVALID_CONFIG naming the field, and the servers in use stay', async () => {
    writeFileSync(join(server.work, 'toolgate.config.yaml'), `${policy}  broken:\n    command: node\n    url: http://127.0.0.1:1/mcp\n`);
    const reload = await graphql(server.url, 'mutation { reloadPlugins { durationMs } }', { key: KEYS.platformAdmin });
    expect(codesOf(reload)).toEqual(['INVALID_CONFIG']);
    expect(JSON.stringify(reload.errors)).toContain('/mcpServers/broken');
    const echo = await run([{ id: 'a', tool: 'everything/echo', arguments: { message: 'kept' } }]);
    expect(echo.data?.executePlan.status).toBe('SUCCEEDED');
    writeFileSync(join(server.work, 'toolgate.config.yaml'), policy);
  });
});
