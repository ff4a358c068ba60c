import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { graphql } from '../support/gateway-process';
import { clientTracker, connectHttp, mcpUrlOf, type ToolResult } from '../support/mcp-clients';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { healthLatencyMs, KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from './support/two-tenants';

/**
 * Issue 14, part C, attacked from outside: Toolgate's MCP endpoint (/mcp) with the two-tenant setup.
 * acme's analyst alone is granted the `vault` plugin; globex's analyst tries to find, read and run it
 * through the meta-tools, and outsiders send no key, made-up keys, malformed JSON-RPC, garbage
 * batches, unknown methods, oversized bodies and deeply nested arguments. Each gets a clear typed
 * error, and /health keeps answering.
 */

const VAULT = `exports.tools = [
  ${toolSource('peek', 'Shows what the vault holds under a label. Use it to test tenant-only tools; not for real work.')},
  { ...${toolSource('purge', 'Purges the named text from the vault for good. Use it to test approvals; not for real work.')}, permissions: { scopes: [], risk: 'destructive' } },
];`;

/** The two-tenant policy, plus a role for the vault that only acme's analyst holds. */
const POLICY = TWO_TENANT_POLICY.replace(
  'roles:\n  analyst:',
  'roles:\n  vault:\n    grants:\n      - tools: "vault/*"\n        actions: [discover, execute]\n        maxRisk: destructive\n  analyst:',
).replace(`key: ${KEYS.acmeAnalyst}\n    tenant: acme\n    subject: alice\n    roles: [analyst]`, `key: ${KEYS.acmeAnalyst}\n    tenant: acme\n    subject: alice\n    roles: [analyst, vault]`);

interface RawAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC message, from a JSON body or the first SSE `data:` line. */
  message: { id?: unknown; result?: ToolResult; error?: { code: number; message: string; data?: { code?: string } } } | null;
}

/** One JSON-RPC POST as any HTTP client would send it; 2025-era requests carry the protocol version header. */
async function post(url: string, body: string, key?: string): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body,
  });
  const text = await response.text();
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  let message: RawAnswer['message'] = null;
  try {
    message = JSON.parse(data);
  } catch {
    message = null;
  }
  return { status: response.status, headers: response.headers, message };
}

const callToolBody = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** A result with the tool id and run or plan ids taken out, so two answers can be compared. */
const normalized = (result: ToolResult, ids: string[]) => {
  let text = JSON.stringify({ ...result, _meta: undefined });
  for (const id of ids) text = text.split(id).join('<id>');
  return JSON.parse(text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'));
};

describe('MCP endpoint: tenancy, authentication and bad clients', () => {
  let server: TwoTenantServer;
  let mcpUrl: string;
  const plugins = mkdtempSync(join(tmpdir(), 'toolgate-mcp-security-'));
  writePlugin(plugins, { folder: 'vault', packageJson: pluginPackage('@fixtures/vault', '1.0.0'), entry: VAULT });
  const { open, closeAll } = clientTracker();

  beforeAll(async () => {
    server = await startTwoTenantServer({}, { extraPluginDirs: [plugins], policy: POLICY });
    mcpUrl = mcpUrlOf(server.url);
  });

  afterEach(async () => {
    await closeAll();
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(plugins, { recursive: true, force: true });
  });

  it.each(['v1', 'v2-pin'] as const)('never shows globex (%s client) an acme-only tool: search, describe and call answer as for a tool that does not exist', async (kind) => {
    const acme = await open(connectHttp(kind, mcpUrl, KEYS.acmeAnalyst));
    const globex = await open(connectHttp(kind, mcpUrl, KEYS.globexAnalyst));
    const idsOf = (result: ToolResult) => (result.structuredContent as { hits: { id: string }[] }).hits.map((h) => h.id);

    // acme's analyst finds and reads the vault: the tools exist and are searchable.
    expect(idsOf(await acme.call('search_tools', { query: 'peek purge vault label', k: 10 }))).toEqual(expect.arrayContaining(['vault/peek', 'vault/purge']));
    expect((await acme.call('describe_tool', { id: 'vault/peek' })).structuredContent).toMatchObject({ id: 'vault/peek' });

    const found = idsOf(await globex.call('search_tools', { query: 'peek purge vault label', k: 50 }));
    expect(found.filter((id) => id.startsWith('vault/'))).toEqual([]);

    for (const [real, fake] of [
      ['vault/peek', 'vault/peeq'],
      ['vault/purge', 'nowhere/purge'],
    ]) {
      const describedReal = await globex.call('describe_tool', { id: real });
      const describedFake = await globex.call('describe_tool', { id: fake });
      expect(describedReal.isError).toBe(true);
      expect(describedReal.structuredContent).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
      expect(normalized(describedReal, [real])).toEqual(normalized(describedFake, [fake]));

      const calledReal = await globex.call('call_tool', { id: real, arguments: { text: 'x' } });
      const calledFake = await globex.call('call_tool', { id: fake, arguments: { text: 'x' } });
      expect(calledReal.isError).toBe(true);
      expect(calledReal.structuredContent).toMatchObject({ error: { code: expect.any(String) } });
      expect(calledReal.structuredContent).not.toHaveProperty('runId');
      expect(normalized(calledReal, [real])).toEqual(normalized(calledFake, [fake]));
    }
    // A bare name globex may not discover is not found either (never AMBIGUOUS, which would reveal it).
    expect((await globex.call('describe_tool', { id: 'peek' })).structuredContent).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
  });

  it('answers no key and made-up keys with 401, a Bearer challenge and a JSON-RPC error naming the problem', async () => {
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const missing = await post(mcpUrl, initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(missing.message).toMatchObject({ id: 1, error: { message: expect.stringMatching(/missing API key/), data: { code: 'UNAUTHENTICATED' } } });
    for (const key of ['made-up-key-000000000001', `${KEYS.acmeAnalyst}x`, KEYS.acmeAnalyst.toUpperCase()]) {
      const refused = await post(mcpUrl, initialize, key);
      expect({ key, status: refused.status, challenge: refused.headers.get('www-authenticate') }).toEqual({ key, status: 401, challenge: expect.stringContaining('error="invalid_token"') });
      expect(refused.message).toMatchObject({ error: { message: 'unknown API key', data: { code: 'UNAUTHENTICATED' } } });
    }
    // The official clients fail to connect, and learn nothing.
    await expect(connectHttp('v1', mcpUrl)).rejects.toThrow(/401|unauthorized|missing API key/i);
    await expect(connectHttp('v2-pin', mcpUrl, 'made-up-key-000000000001')).rejects.toThrow(/401|unauthorized|unknown API key/i);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });

  it('refuses malformed JSON, a garbage batch, an unknown method, an oversized body and 5,000-level nested arguments, each with a typed error', async () => {
    const key = KEYS.globexAnalyst;
    const malformed = await post(mcpUrl, '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', key);
    expect(malformed.status).toBe(400);
    expect(malformed.message).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });

    const garbage = await post(mcpUrl, JSON.stringify([1, 'two', { three: 3 }, null, []]), key);
    expect(garbage.status).toBe(400);
    expect(garbage.message).toMatchObject({ error: { code: -32600 } });

    // JSON-RPC sent as another content type: not parsed as JSON at all, refused with 415.
    const asText = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
    });
    expect(asText.status).toBe(415);
    expect(await asText.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.stringMatching(/content-type/i) } });

    const unknown = await post(mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/destroy_everything' }), key);
    expect(unknown.message).toMatchObject({ id: 7, error: { code: -32601 } });

    // Over TOOLGATE_MAX_BODY_BYTES (16 MiB by default): refused before anything parses it.
    const oversized = await post(mcpUrl, callToolBody(8, 'search_tools', { query: 'x'.repeat(17 * 1024 * 1024) }), key);
    expect(oversized.status).toBe(413);
    expect(oversized.message).toMatchObject({ error: { code: -32000, message: expect.stringContaining('TOOLGATE_MAX_BODY_BYTES'), data: { code: 'INVALID_ARGUMENTS' } } });
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);

    // Written as text: JSON.stringify itself overflows the stack at this depth.
    const nested = `${'{"a":'.repeat(5_000)}"deep"${'}'.repeat(5_000)}`;
    const deep = await post(mcpUrl, callToolBody(9, 'call_tool', { id: 'calculator/evaluate', arguments: {} }).replace('"arguments":{}}', `"arguments":${nested}}`), key);
    expect(deep.status).toBe(200);
    expect(deep.message?.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_ARGUMENTS', details: [{ message: expect.stringMatching(/nests deeper/) }] } } });
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);

    // Arguments a meta-tool does not take are refused by its input schema, as a tool error naming the field.
    const badK = await post(mcpUrl, callToolBody(10, 'search_tools', { query: 'convert', k: 500 }), key);
    expect(badK.message?.result).toMatchObject({ isError: true });
    expect(badK.message?.result?.content[0].text).toMatch(/\bk\b/);

    // Nothing else was affected: the same key still searches and calls.
    const client = await open(connectHttp('v2-pin', mcpUrl, key));
    expect((await client.call('call_tool', { id: 'calculator/evaluate', arguments: { expression: '2 ^ 10' } })).structuredContent).toMatchObject({ status: 'SUCCEEDED', output: { result: 1024 } });
  });

  it('holds a destructive tool for approval (PENDING_APPROVAL, not an error); another subject approves it over GraphQL', async () => {
    const acme = await open(connectHttp('v1', mcpUrl, KEYS.acmeAnalyst));
    const held = await acme.call('call_tool', { id: 'vault/purge', arguments: { text: 'old records' } });
    expect(held.isError).toBeFalsy();
    const structured = held.structuredContent as { runId: string; status: string; approval: { stepId: string; approveWith: string } };
    expect(structured).toMatchObject({ status: 'PENDING_APPROVAL', approval: { stepId: 'call', tool: 'vault/purge@1.0.0' } });
    expect(held.content[0].text).toContain(`approveStep(runId: "${structured.runId}", stepId: "call")`);
    // The owner may not approve its own call; acme's admin does, and the step runs.
    const approve = `mutation { approveStep(runId: "${structured.runId}", stepId: "call") { status steps { status output } } }`;
    expect((await graphql(server.url, approve, { key: KEYS.acmeAnalyst })).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await graphql(server.url, approve, { key: KEYS.acmeAdmin })).data).toEqual({ approveStep: { status: 'SUCCEEDED', steps: [{ status: 'SUCCEEDED', output: { text: 'old records' } }] } });
  });
});

describe('MCP endpoint: one rate budget per caller, shared with GraphQL', () => {
  let server: TwoTenantServer;
  let mcpUrl: string;
  const searchBody = (id: number) => callToolBody(id, 'search_tools', { query: 'convert km to miles' });

  beforeAll(async () => {
    server = await startTwoTenantServer({ TOOLGATE_RATE_LIMIT_PER_MINUTE: '600', TOOLGATE_RATE_LIMIT_BURST: '400', GRAPHQL_MAX_COMPLEXITY: '400' });
    mcpUrl = mcpUrlOf(server.url);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('limits a flood of meta-tool calls with 429, Retry-After and RATE_LIMITED; the same key is limited over GraphQL; another tenant is served', async () => {
    let limited: RawAnswer | null = null;
    let served = 0;
    for (let i = 0; i < 300 && !limited; i += 1) {
      const answer = await post(mcpUrl, searchBody(i), KEYS.acmeAnalyst);
      if (answer.status === 429) limited = answer;
      else served += 1;
    }
    expect(served).toBeGreaterThan(5);
    expect(limited).not.toBeNull();
    const retryAfter = Number(limited?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited?.message).toMatchObject({ error: { code: -32000, message: expect.stringContaining('rate limit'), data: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter } } });

    // The same budget: a search that costs more than the one just refused is refused over GraphQL too.
    const overGraphql = await graphql(server.url, '{ searchTools(input: { query: "convert", k: 20 }) { score } }', { key: KEYS.acmeAnalyst });
    expect(overGraphql.errors?.[0].extensions?.code).toBe('RATE_LIMITED');

    const other = await post(mcpUrl, searchBody(1), KEYS.globexAnalyst);
    expect(other.status).toBe(200);
    expect(other.message?.result?.isError).toBeFalsy();
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });

  it('charges keys that do not authenticate to their address: guessing keys over /mcp runs into the limit', async () => {
    let answer: RawAnswer | null = null;
    let refusedAsUnknown = 0;
    for (let i = 0; i < 400; i += 1) {
      answer = await post(mcpUrl, searchBody(i), `guessed-key-${i}-0000000000`);
      if (answer.status !== 401) break;
      refusedAsUnknown += 1;
    }
    expect(refusedAsUnknown).toBeGreaterThan(5);
    expect(answer?.status).toBe(429);
    expect(answer?.message).toMatchObject({ error: { data: { code: 'RATE_LIMITED' } } });
    // A real key is its own budget, not the address's.
    expect((await post(mcpUrl, searchBody(2), KEYS.globexAdmin)).status).toBe(200);
  });
});
