import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codesOf, graphql } from '../support/gateway-process';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';
import { healthLatencyMs, KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from './support/two-tenants';

/**
 * Runtime tenancy (issue 10, item 3): one tenant's calls cannot shut a tool off or starve it for
 * another, a tenant admin's changes stay in its tenant, and no tenant reads another's failures.
 *
 * The attacker holds acme's keys (a read-only analyst and acme's tenant admin). Two third-party tools
 * stand in for the calculator's expensive expressions: `puzzle/solve` works as long as the puzzle is
 * deep (its timeout is 300 ms), `queue/wait` holds a slot for as long as it is asked to.
 */
/** A plugin with one tool that pauses `depth` ms (stopping when its call is aborted) and answers depth × 2. */
const slowPlugin = (name: string, tool: string, description: string, timeoutMs: number, maxConcurrency: number) => ({
  folder: name,
  packageJson: pluginPackage(`@fixtures/${name}`, '1.0.0'),
  entry: `
const pause = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('stopped')); }, { once: true });
});
exports.tools = [{
  name: ${JSON.stringify(tool)},
  title: ${JSON.stringify(tool)},
  description: ${JSON.stringify(description)},
  category: ['testing'],
  tags: ['slow'],
  inputSchema: { type: 'object', properties: { depth: { type: 'integer', minimum: 0, maximum: 60000, description: 'how deep' } }, required: ['depth'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] },
  examples: [{ query: 'a small one', arguments: { depth: 1 }, output: { answer: 2 } }],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: ${timeoutMs}, maxConcurrency: ${maxConcurrency}, retries: 0, idempotent: true },
  execution: 'server',
  run: async (args, ctx) => { await pause(args.depth, ctx.signal); return { answer: args.depth * 2 }; },
}];`,
});
const puzzlePlugin = slowPlugin('puzzle', 'solve', 'Solves a puzzle of the given depth; deeper puzzles take longer. Use it for puzzles; not for real work.', 300, 8);
const queuePlugin = slowPlugin('queue', 'wait', 'Waits in line for the given number of milliseconds. Use it to test queues; not for real work.', 20000, 4);

/** Analysts may also run the two fixture tools. */
const POLICY = TWO_TENANT_POLICY.replace('"{units,calculator,currency,datetime,text,table,chart}/*"', '"{units,calculator,currency,datetime,text,table,chart,puzzle,queue}/*"');

const EXECUTE_PLAN = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { status steps { id status output error { code message } } } }';
const TOOL_HEALTH = '{ toolHealth { toolId version breaker { state shared failures inFlight tenantLimit lastFailure { code message } } } }';

interface StepResult {
  id: string;
  status: string;
  output: { answer?: number } | null;
  error: { code: string; message: string } | null;
}
interface HealthRow {
  toolId: string;
  version: string;
  breaker: { state: string; shared: string; failures: number; inFlight: number; tenantLimit: number; lastFailure: { code: string; message: string } | null } | null;
}

describe('runtime tenancy: breakers, fair shares, tenant admins and failure details', () => {
  let server: TwoTenantServer;
  let plugins: string;

  const steps = async (key: string, list: { tool: string; arguments: Record<string, unknown> }[]): Promise<StepResult[]> => {
    const plan = { steps: list.map((step, i) => ({ id: `s${i}`, ...step })) };
    const response = await graphql<{ executePlan: { steps: StepResult[] } }>(server.url, EXECUTE_PLAN, { key, variables: { plan } });
    expect(response.errors).toBeUndefined();
    return response.data?.executePlan.steps ?? [];
  };
  const one = async (key: string, tool: string, args: Record<string, unknown>) => (await steps(key, [{ tool, arguments: args }]))[0];
  const healthOf = async (key: string, toolId: string) => {
    const response = await graphql<{ toolHealth: HealthRow[] }>(server.url, TOOL_HEALTH, { key });
    expect(response.errors).toBeUndefined();
    return { rows: response.data?.toolHealth ?? [], row: response.data?.toolHealth.find((r) => r.toolId === toolId), raw: JSON.stringify(response.data) };
  };

  beforeAll(async () => {
    plugins = mkdtempSync(join(tmpdir(), 'toolgate-runtime-tenancy-'));
    writePlugin(plugins, puzzlePlugin);
    writePlugin(plugins, queuePlugin);
    server = await startTwoTenantServer({ TOOLGATE_BREAKER_FAILURES: '3', TOOLGATE_BREAKER_HALF_OPEN_AFTER_MS: '600000' }, { extraPluginDirs: [plugins], policy: POLICY });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(plugins, { recursive: true, force: true });
  });

  it("acme's own expensive inputs open acme's breaker only: globex's ordinary call still succeeds", async () => {
    // The attacker's puzzles are far deeper than the tool's 300 ms: one by one, then three in one plan, until acme is refused.
    const seen: string[] = [];
    for (let i = 0; i < 8 && !seen.includes('CIRCUIT_OPEN'); i++) {
      const batch = i % 2 === 0 ? [{ tool: 'puzzle/solve', arguments: { depth: 20000 + i } }] : Array.from({ length: 3 }, (_, j) => ({ tool: 'puzzle/solve', arguments: { depth: 30000 + j } }));
      for (const step of await steps(KEYS.acmeAnalyst, batch)) seen.push(step.error?.code ?? step.status);
    }
    expect(seen).toContain('TIMEOUT');
    expect(seen).toContain('CIRCUIT_OPEN');
    // acme is refused now, even for a shallow puzzle.
    expect((await one(KEYS.acmeAnalyst, 'puzzle/solve', { depth: 1 })).error?.code).toBe('CIRCUIT_OPEN');

    const globex = await one(KEYS.globexAnalyst, 'puzzle/solve', { depth: 21 });
    expect(globex).toMatchObject({ status: 'SUCCEEDED', output: { answer: 42 }, error: null });
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });

  it("globex's toolHealth and the public /health/ready show none of acme's failures; acme sees its own", async () => {
    const globex = await healthOf(KEYS.globexAnalyst, 'puzzle/solve');
    expect(globex.row?.breaker).toMatchObject({ state: 'CLOSED', shared: 'CLOSED', failures: 0, lastFailure: null });
    for (const row of globex.rows) expect(row.breaker?.lastFailure ?? null).toBeNull();
    expect(globex.raw).not.toMatch(/did not finish|TIMEOUT|acme/);
    // Globex's admin sees no more of acme than its analyst does.
    expect((await healthOf(KEYS.globexAdmin, 'puzzle/solve')).raw).not.toMatch(/did not finish|TIMEOUT|acme/);

    const acme = await healthOf(KEYS.acmeAnalyst, 'puzzle/solve');
    expect(acme.row?.breaker).toMatchObject({ state: 'OPEN', shared: 'CLOSED', lastFailure: { code: 'TIMEOUT' } });

    const ready = await fetch(server.url.replace(/\/graphql$/, '/health/ready'));
    const text = await ready.text();
    expect(ready.status).toBe(200);
    expect(text).not.toMatch(/did not finish|lastFailure|"message"|TIMEOUT/);
    expect((JSON.parse(text) as { details: { tools: { openBreakers: unknown[] } } }).details.tools.openBreakers).toEqual([]);
  });

  it("acme flooding a slow tool's concurrency cannot take every slot: globex's call still runs meanwhile", async () => {
    const flood = Array.from({ length: 6 }, (_, i) => one(KEYS.acmeAnalyst, 'queue/wait', { depth: 3000 + i }));
    // Wait until the flood holds acme's share; the rest of acme's calls wait for acme's own slots.
    for (let i = 0; i < 100; i++) {
      const acme = await healthOf(KEYS.acmeAdmin, 'queue/wait');
      if ((acme.row?.breaker?.inFlight ?? 0) >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const globex = await one(KEYS.globexAnalyst, 'queue/wait', { depth: 5 });
    expect(globex).toMatchObject({ status: 'SUCCEEDED', output: { answer: 10 } });
    // acme only slowed itself: every one of its calls ran, in turn.
    const outcomes = (await Promise.all(flood)).map((s) => s.error?.code ?? s.status);
    expect(outcomes).toEqual(Array(6).fill('SUCCEEDED'));
  });

  it("acme's admin disabling a version disables it for acme only: globex still runs it", async () => {
    const SET = 'mutation($input: SetToolVersionStateInput!) { setToolVersionState(input: $input) { id activeVersion } }';
    type Set = { setToolVersionState: { id: string; activeVersion: string | null } };
    const version = (await graphql<{ tool: { activeVersion: string } }>(server.url, '{ tool(id: "units/convert") { activeVersion } }', { key: KEYS.globexAnalyst })).data?.tool.activeVersion as string;
    const disabled = await graphql<Set>(server.url, SET, { key: KEYS.acmeAdmin, variables: { input: { toolId: 'units/convert', version, state: 'DISABLED' } } });
    expect(disabled.errors).toBeUndefined();
    expect(disabled.data?.setToolVersionState.activeVersion).toBeNull();

    const args = { value: 5, from: 'km', to: 'm' };
    expect((await one(KEYS.globexAnalyst, 'units/convert', args)).status).toBe('SUCCEEDED');
    const globexTool = await graphql<{ tool: { activeVersion: string | null } }>(server.url, '{ tool(id: "units/convert") { activeVersion } }', { key: KEYS.globexAdmin });
    expect(globexTool.data?.tool.activeVersion).toBe(version);
    // In acme it is off, named with its version or not.
    for (const tool of [`units/convert@${version}`, 'units/convert']) {
      const acmeRun = await graphql(server.url, EXECUTE_PLAN, { key: KEYS.acmeAnalyst, variables: { plan: { steps: [{ id: 's0', tool, arguments: args }] } } });
      expect(acmeRun.data?.executePlan ?? null).toBeNull();
      expect(codesOf(acmeRun)).toHaveLength(1);
      expect(['UNAVAILABLE', 'TOOL_NOT_FOUND']).toContain(codesOf(acmeRun)[0]);
    }

    // Asking for every tenant instead is a platform admin's call.
    const platformWide = await graphql(server.url, SET, { key: KEYS.acmeAdmin, variables: { input: { toolId: 'units/convert', version, state: 'DISABLED', scope: 'PLATFORM' } } });
    expect(codesOf(platformWide)).toEqual(['FORBIDDEN']);
    expect(platformWide.errors?.[0].message).toMatch(/platform admin/);
    expect((await one(KEYS.globexAnalyst, 'units/convert', args)).status).toBe('SUCCEEDED');

    const back = await graphql<Set>(server.url, SET, { key: KEYS.acmeAdmin, variables: { input: { toolId: 'units/convert', version, state: 'ACTIVE' } } });
    expect(back.data?.setToolVersionState.activeVersion).toBe(version);
  });

  it('a tenant admin cannot make changes that reach every tenant: reloads and approvals need a platform admin', async () => {
    const hash = 'f'.repeat(64);
    const attempts = [
      'mutation { reloadPlugins { durationMs } }',
      'mutation { reloadPolicies { apiKeys } }',
      `mutation { approveToolVersion(input: { toolId: "units/convert", version: "1.0.0", descriptorHash: "${hash}" }) { id } }`,
    ];
    for (const key of [KEYS.acmeAdmin, KEYS.globexAdmin, KEYS.acmeAnalyst]) {
      for (const query of attempts) {
        const response = await graphql(server.url, query, { key });
        expect(codesOf(response)).toEqual(['FORBIDDEN']);
        if (key !== KEYS.acmeAnalyst) expect(response.errors?.[0].message).toMatch(/platform admin/);
      }
    }
    // The platform's operator may.
    expect(codesOf(await graphql(server.url, 'mutation { reloadPlugins { durationMs } }', { key: KEYS.platformAdmin }))).toEqual([]);
    expect(codesOf(await graphql(server.url, 'mutation { reloadPolicies { apiKeys } }', { key: KEYS.platformAdmin }))).toEqual([]);
  });
});
