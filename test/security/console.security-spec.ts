import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { codesOf, graphql, REPO_ROOT } from '../support/gateway-process';
import { KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * The console as an outsider attacks it: the static files it is served from, the page's framing and
 * script policy, and the two queries it added to the public API (searchFunnel, toolQuality), read
 * with another tenant's key or a narrower role.
 */

const FUNNEL = 'query($input: SearchToolsInput!) { searchFunnel(input: $input) { query k candidates { toolId version verdict reason } } }';
const QUALITY = 'query($input: ToolQualityInput) { toolQuality(input: $input) { runsConsidered tools { tool calls failures failingQueries { runId task code } } } }';

describe('console: static files, page policy, and the funnel and quality queries across tenants and roles', () => {
  let server: TwoTenantServer;
  let origin: string;

  beforeAll(async () => {
    server = await startTwoTenantServer();
    origin = new URL(server.url).origin;
    // acme's admin runs a secret task on a file tool (which analysts may not discover) and a failing calculation.
    await graphql(server.url, 'mutation { executePlan(plan: { steps: [{ id: "w", tool: "files/write", arguments: { path: "acme-secret-plan.txt", content: "merger with globex" } }] }) { status } }', {
      key: KEYS.acmeAdmin,
    });
    await graphql(server.url, 'mutation { runTask(task: { text: "evaluate the acme merger ratio 2*(3+" }) { status } }', { key: KEYS.acmeAdmin });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('serves only the console build: traversal, encoded traversal and absolute paths never reach the repo, the data folder or the policy file', async () => {
    const probes = [
      '/console/../package.json',
      '/console/..%2f..%2fpackage.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/%252e%252e/package.json',
      '/console//etc/passwd',
      '/console/..\\..\\package.json',
      `/console/${encodeURIComponent(server.policyFile)}`,
      `/console/${encodeURIComponent(join(server.work, 'data', 'toolgate.db'))}`,
      '/console/.env',
      '/console/index.html%00.png',
      '/console/assets/no-such-chunk.js',
    ];
    for (const path of probes) {
      const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
      const body = await response.text();
      // The page itself may answer (the fallback for what is not a file of the build); nothing else, and no path on disk.
      expect({ path, leaked: /"workspaces"|root:x:0|apiKeys|SQLite format|TOOLGATE_/.test(body) || body.includes(REPO_ROOT) || body.includes(server.work) }).toEqual({ path, leaked: false });
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
    const built = readdirSync(join(REPO_ROOT, 'apps', 'console', 'dist', 'assets'));
    const script = built.find((file) => file.endsWith('.js')) as string;
    const asset = await fetch(`${origin}/console/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the page holds no data and can be neither framed nor made to run foreign scripts', async () => {
    const page = await fetch(`${origin}/console/`);
    const html = await page.text();
    expect(html).not.toMatch(/acme|globex|key/i);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/frame-ancestors 'none'/);
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).not.toMatch(/unsafe-eval/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('searchFunnel never names a tool the caller may not discover, not even as dropped', async () => {
    const response = await graphql<{ searchFunnel: { candidates: { toolId: string }[] } }>(server.url, FUNNEL, {
      key: KEYS.acmeAnalyst,
      variables: { input: { query: 'write a file to the sandbox, fetch a url, post http, read files, list files', k: 50 } },
    });
    expect(response.errors).toBeUndefined();
    const ids = response.data?.searchFunnel.candidates.map((c) => c.toolId) ?? [];
    expect(ids.filter((id) => /^(files|http|vision)\//.test(id))).toEqual([]);
    // The admin of the same tenant does see them: the filter is the role, not the query.
    const admin = await graphql<{ searchFunnel: { candidates: { toolId: string }[] } }>(server.url, FUNNEL, {
      key: KEYS.acmeAdmin,
      variables: { input: { query: 'write a file to the sandbox', k: 3 } },
    });
    expect(admin.data?.searchFunnel.candidates.map((c) => c.toolId)).toContain('files/write');
  });

  it('searchFunnel refuses what searchTools refuses: no key, a k over the maximum, an empty query', async () => {
    expect(codesOf(await graphql(server.url, FUNNEL, { variables: { input: { query: 'convert miles' } } }))).toEqual(['UNAUTHENTICATED']);
    expect(codesOf(await graphql(server.url, FUNNEL, { key: 'not-a-key', variables: { input: { query: 'convert miles' } } }))).toEqual(['UNAUTHENTICATED']);
    expect(codesOf(await graphql(server.url, FUNNEL, { key: KEYS.acmeAnalyst, variables: { input: { query: 'convert miles', k: 5000 } } }))).toEqual(['INVALID_ARGUMENTS']);
    expect(codesOf(await graphql(server.url, FUNNEL, { key: KEYS.acmeAnalyst, variables: { input: { query: '   ' } } }))).toEqual(['INVALID_ARGUMENTS']);
  });

  it("toolQuality shows another tenant none of acme's calls or tasks, and a narrower role none of the tools it may not discover", async () => {
    const acme = await graphql<{ toolQuality: { tools: { tool: string; failingQueries: { task: string | null }[] }[] } }>(server.url, QUALITY, { key: KEYS.acmeAdmin });
    expect(acme.errors).toBeUndefined();
    const acmeTools = acme.data?.toolQuality.tools.map((t) => t.tool) ?? [];
    expect(acmeTools.some((tool) => tool.startsWith('files/write@'))).toBe(true);
    expect(JSON.stringify(acme.data)).toMatch(/acme merger ratio/);

    for (const key of [KEYS.globexAdmin, KEYS.globexAnalyst, KEYS.platformAdmin]) {
      const other = await graphql<{ toolQuality: { runsConsidered: number; tools: unknown[] } }>(server.url, QUALITY, { key });
      expect(other.data?.toolQuality).toEqual({ runsConsidered: 0, tools: [] });
    }
    const analyst = await graphql<{ toolQuality: { tools: { tool: string }[] } }>(server.url, QUALITY, { key: KEYS.acmeAnalyst });
    expect(analyst.data?.toolQuality.tools.map((t) => t.tool).filter((tool) => tool.startsWith('files/'))).toEqual([]);
    expect(JSON.stringify(analyst.data)).not.toMatch(/acme-secret-plan/);
  });

  it('toolQuality refuses an unbounded window or bucket count with the field named, and no key', async () => {
    for (const [input, path] of [
      [{ sinceHours: 0 }, '/sinceHours'],
      [{ sinceHours: 100_000 }, '/sinceHours'],
      [{ bucketMinutes: 1 }, '/bucketMinutes'],
      [{ sinceHours: 720, bucketMinutes: 5 }, '/bucketMinutes'],
    ] as const) {
      const response = await graphql(server.url, QUALITY, { key: KEYS.acmeAdmin, variables: { input } });
      expect(codesOf(response)).toEqual(['INVALID_ARGUMENTS']);
      expect(JSON.stringify(response.errors)).toContain(path.slice(1));
    }
    expect(codesOf(await graphql(server.url, QUALITY, {}))).toEqual(['UNAUTHENTICATED']);
  });
});
