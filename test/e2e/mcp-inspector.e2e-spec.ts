import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from '../security/support/two-tenants';
import { REPO_ROOT } from '../support/gateway-process';

/**
 * Both directions at once, driven by the MCP Inspector CLI (an unmodified client from npm): Toolgate
 * imports the reference server's tools and serves them to the Inspector through its meta-tools,
 * scoped to the Inspector's key. (The Inspector declares Node >= 22.19 and runs here on Node 20.)
 */
const INSPECTOR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const run = promisify(execFile);

describe('the MCP Inspector CLI against Toolgate', () => {
  let server: TwoTenantServer;
  let mcpUrl: string;

  const inspect = async (key: string, ...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', mcpUrl, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args], { timeout: 60_000 });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  const call = async (key: string, tool: string, ...toolArgs: string[]) =>
    (await inspect(key, '--method', 'tools/call', '--tool-name', tool, ...toolArgs.flatMap((a) => ['--tool-arg', a]))) as { structuredContent: Record<string, unknown>; isError?: boolean };

  beforeAll(async () => {
    server = await startTwoTenantServer({}, { policy: `${TWO_TENANT_POLICY}\nmcpServers:\n  everything:\n    command: ${process.execPath}\n    args: [${JSON.stringify(EVERYTHING)}, stdio]\n` });
    mcpUrl = server.url.replace(/\/graphql$/, '/mcp');
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('lists the meta-tools', async () => {
    const listed = (await inspect(KEYS.acmeAdmin, '--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['call_tool', 'describe_tool', 'run_task', 'search_tools']);
  });

  it('finds an imported MCP tool with search_tools and runs it with call_tool', async () => {
    const found = await call(KEYS.acmeAdmin, 'search_tools', 'query=echo back a message');
    expect((found.structuredContent.hits as { id: string }[]).map((h) => h.id)).toContain('everything/echo');
    const ran = await call(KEYS.acmeAdmin, 'call_tool', 'id=everything/echo', 'arguments={"message":"from the inspector"}');
    expect(ran.structuredContent).toMatchObject({ status: 'SUCCEEDED', output: { content: [{ type: 'text', text: 'Echo: from the inspector' }] } });
  });

  it("an analyst's key finds none of them and cannot call one", async () => {
    const found = await call(KEYS.acmeAnalyst, 'search_tools', 'query=echo back a message');
    expect((found.structuredContent.hits as { id: string }[]).some((h) => h.id.startsWith('everything/'))).toBe(false);
    // The Inspector exits non-zero on an isError result and prints what it got.
    const refused = await inspect(KEYS.acmeAnalyst, '--method', 'tools/call', '--tool-name', 'call_tool', '--tool-arg', 'id=everything/echo', '--tool-arg', 'arguments={"message":"x"}').then(
      () => null,
      (error: { stdout?: string }) => JSON.parse(error.stdout ?? 'null'),
    );
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'TOOL_NOT_FOUND' } } });
  });
});
