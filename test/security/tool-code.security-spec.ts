import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codesOf, graphql } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * Tool code against the gateway: plugins that hang, explode or bloat at import, tools that snoop,
 * spawn, write, flood the host with output, or leave state for the next tenant. Each attack runs
 * against the built server while /health is polled; the server must keep answering within a second.
 */

const HOST_SECRET = 'sk-live-host-secret-never-shown';

/** Everything a hostile tool tries once it runs, in one package (one worker profile: no scopes). */
const SNOOP_TOOLS = `let calls = 0;
exports.tools = [
  ${toolSource('env', 'Reports its environment. A fixture for the security suite; not for real work.', 'run: async () => ({ text: JSON.stringify(process.env) }),')},
  ${toolSource('read', 'Reads a file by path. A fixture for the security suite; not for real work.', "run: async (args) => ({ text: require('fs').readFileSync(args.text, 'utf8').slice(0, 200) }),")},
  ${toolSource('write', 'Writes a file by path. A fixture for the security suite; not for real work.', "run: async (args) => { require('fs').writeFileSync(args.text, 'owned'); return { text: 'written' }; },")},
  ${toolSource('spawn', 'Runs a shell command. A fixture for the security suite; not for real work.', "run: async (args) => ({ text: require('child_process').execSync(args.text).toString() }),")},
  ${toolSource('flood', 'Returns a very large text. A fixture for the security suite; not for real work.', "run: async (args) => ({ text: 'x'.repeat(Number(args.text)) }),")},
  ${toolSource('count', 'Counts its own calls. A fixture for the security suite; not for real work.', 'run: async () => ({ text: String(++calls) }),')},
];`;

/** A package whose code is changed in place (same version) by the reload test. */
const driftSource = (code: string, description: string) => `exports.tools = [${toolSource('say', description, `run: async () => ({ text: ${JSON.stringify(code)} }),`)}];`;

type Call = { tool: { status?: string; output: { text: string } | null; error: { code: string; message: string } | null } };
const EXECUTE = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { status steps { status output error { code message } } } }';
const oneStep = (tool: string, args: Record<string, unknown>) => ({ plan: { steps: [{ id: 'a', tool, arguments: args }] } });

describe('tool code cannot take the gateway down, snoop, or cross tenants', () => {
  let server: TwoTenantServer;
  let plugins: string;
  const health: number[] = [];
  let polling: NodeJS.Timeout;

  const run = async (key: string, tool: string, text: string) => {
    const response = await graphql<{ executePlan: { status: string; steps: Call['tool'][] } }>(server.url, EXECUTE, { key, variables: oneStep(tool, { text }) });
    const step = response.data?.executePlan.steps[0];
    return { codes: codesOf(response), status: step?.status, output: step?.output?.text, error: step?.error ?? null };
  };

  beforeAll(async () => {
    plugins = mkdtempSync(join(tmpdir(), 'toolgate-hostile-'));
    writePlugin(plugins, { folder: 'snoop', packageJson: pluginPackage('@hostile/snoop', '1.0.0'), entry: SNOOP_TOOLS });
    writePlugin(plugins, {
      folder: 'drift',
      packageJson: pluginPackage('@fixtures/drift', '1.0.0'),
      entry: driftSource('old', 'Says which code runs. A fixture for the security suite; not for real work.'),
    });
    server = await startTwoTenantServer({ OPENAI_API_KEY: HOST_SECRET, TOOLGATE_PLUGIN_IMPORT_TIMEOUT_MS: '8000', TOOLGATE_WORKER_MAX_OUTPUT_BYTES: '1048576' }, { extraPluginDirs: [plugins] });
    polling = setInterval(() => {
      healthLatencyMs(server.url).then(
        (ms) => health.push(ms),
        () => health.push(Number.POSITIVE_INFINITY),
      );
    }, 200);
  });

  afterAll(async () => {
    clearInterval(polling);
    await server?.stop();
    rmSync(plugins, { recursive: true, force: true });
  });

  afterEach(() => {
    // The invariant of the whole suite: whatever a plugin did, /health answered within a second.
    expect(health.filter((ms) => ms > 1000)).toEqual([]);
  });

  it('gives tool code none of the host environment: API keys in the server env stay out', async () => {
    const result = await run(KEYS.acmeAdmin, 'snoop/env', '');
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).not.toContain(HOST_SECRET);
    expect(result.output).not.toContain(KEYS.acmeAdmin);
    expect(Object.keys(JSON.parse(result.output ?? '{}'))).not.toContain('TOOLGATE_CONFIG');
  });

  it('keeps a tool without file scopes out of the catalog database, the policy file and the system, and from writing anywhere', async () => {
    for (const path of [join(server.work, 'data', 'toolgate.db'), server.policyFile, '/etc/passwd', '/proc/self/environ']) {
      const result = await run(KEYS.acmeAdmin, 'snoop/read', path);
      expect({ path, status: result.status, code: result.error?.code }).toEqual({ path, status: 'FAILED', code: 'TOOL_FAILED' });
    }
    const target = join(server.work, 'owned.txt');
    expect((await run(KEYS.acmeAdmin, 'snoop/write', target)).status).toBe('FAILED');
    expect((await run(KEYS.acmeAdmin, 'snoop/write', '/tmp/toolgate-owned.txt')).status).toBe('FAILED');
  });

  it('refuses to start processes for a tool without a proc: scope', async () => {
    for (const command of ['id', 'curl http://127.0.0.1:1/', 'cat /etc/passwd']) {
      const result = await run(KEYS.acmeAdmin, 'snoop/spawn', command);
      expect({ command, status: result.status, leaked: /uid=|root:/.test(result.output ?? '') }).toEqual({ command, status: 'FAILED', leaked: false });
    }
  });

  it('stops a 64 MB output at the worker (64 times the limit), and the next call is served', async () => {
    const result = await run(KEYS.acmeAdmin, 'snoop/flood', String(64 * 1024 * 1024));
    expect(result.error?.code).toMatch(/^(OUTPUT_TOO_LARGE|TOOL_FAILED)$/);
    expect((await run(KEYS.acmeAdmin, 'snoop/flood', '5')).output).toBe('xxxxx');
  });

  it('lets a read-only analyst blow up only its own calculator worker: array growth by concatenation fails typed, the other tenant computes right away', async () => {
    const bombs = [
      'x = [1,2,3,4,5,6,7,8]; x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x); x = concat(x,x,x,x,x,x,x,x)',
    ];
    for (const expression of bombs) {
      const response = await graphql<{ executePlan: { steps: Call['tool'][] } }>(server.url, EXECUTE, { key: KEYS.acmeAnalyst, variables: oneStep('calculator/evaluate', { expression }) });
      const step = response.data?.executePlan.steps[0];
      expect(step?.status).toBe('FAILED');
      expect(step?.error?.code).toMatch(/^(TOOL_FAILED|OUTPUT_TOO_LARGE|TIMEOUT|INVALID_ARGUMENTS)$/);
    }
    const other = await graphql<{ executePlan: { steps: Call['tool'][] } }>(server.url, EXECUTE, { key: KEYS.globexAnalyst, variables: oneStep('calculator/evaluate', { expression: '123456*2' }) });
    expect(JSON.stringify(other.data?.executePlan.steps[0].output)).toContain('246912');
  }, 60_000);

  it('never shows one tenant the state a tool kept from another tenant’s calls', async () => {
    for (let i = 0; i < 3; i++) await run(KEYS.globexAdmin, 'snoop/count', '');
    expect((await run(KEYS.acmeAdmin, 'snoop/count', '')).output).toBe('1');
  });
  it('reads plugins outside the server: one that loops, one that exhausts memory and one with a 50,000-property schema at import are PLUGIN_INVALID, the others load', async () => {
    writePlugin(plugins, { folder: 'spin', packageJson: pluginPackage('@hostile/spin', '1.0.0'), entry: `for (;;) {}\nexports.tools = [${toolSource('a')}];` });
    writePlugin(plugins, {
      folder: 'hog',
      packageJson: pluginPackage('@hostile/hog', '1.0.0'),
      entry: `const hog = []; for (;;) hog.push(new Array(1e6).fill(1));\nexports.tools = [${toolSource('a')}];`,
    });
    const properties = `{${Array.from({ length: 50_000 }, (_, i) => `p${i}: { type: 'string' }`).join(',')}}`;
    writePlugin(plugins, {
      folder: 'wide',
      packageJson: pluginPackage('@hostile/wide', '1.0.0'),
      entry: `exports.tools = [${toolSource('a', undefined, `inputSchema: { type: 'object', properties: ${properties} },`)}];`,
    });
    type Report = { reloadPlugins: { loaded: { packageName: string }[]; failed: { packageName: string; error: { code: string; message: string; details: { path: string; message: string }[] } }[] } };
    const reload = await graphql<Report>(server.url, 'mutation { reloadPlugins { loaded { packageName } failed { packageName error { code message details { path message } } } } }', {
      key: KEYS.platformAdmin,
    });
    const failed = Object.fromEntries((reload.data?.reloadPlugins.failed ?? []).map((p) => [p.packageName, p.error]));
    expect(failed['@hostile/spin']).toMatchObject({ code: 'PLUGIN_INVALID', message: expect.stringContaining('did not finish within 8000 ms') });
    expect(failed['@hostile/hog']).toMatchObject({ code: 'PLUGIN_INVALID', message: expect.stringContaining('heap') });
    expect(failed['@hostile/wide']).toMatchObject({ code: 'PLUGIN_INVALID', details: [expect.objectContaining({ path: '/tools/0/inputSchema', message: expect.stringContaining('5000') })] });
    expect(reload.data?.reloadPlugins.loaded.map((p) => p.packageName)).toEqual(expect.arrayContaining(['@hostile/snoop', '@toolgate-plugins/calculator']));
    expect((await run(KEYS.acmeAdmin, 'snoop/count', '')).codes).toEqual([]);
  }, 120_000);

  it('runs the code an approval pinned: a package changed in place is held for approval, then its workers run the new code, not the old module', async () => {
    expect((await run(KEYS.acmeAdmin, 'drift/say', '')).output).toBe('old');
    writePlugin(plugins, {
      folder: 'drift',
      packageJson: pluginPackage('@fixtures/drift', '1.0.0'),
      entry: driftSource('new', 'Says which code runs, republished in place. A fixture for the security suite; not for real work.'),
    });
    expect(codesOf(await graphql(server.url, 'mutation { reloadPlugins { durationMs } }', { key: KEYS.platformAdmin }))).toEqual([]);
    // Changed without a version bump: the version waits for a platform admin's approval.
    type Versions = { tools: { id: string; versions: { version: string; state: string; pendingDescriptorHash: string | null }[] }[] };
    const held = await graphql<Versions>(server.url, '{ tools(filter: { namespace: "drift", includeInactive: true }) { id versions { version state pendingDescriptorHash } } }', {
      key: KEYS.platformAdmin,
    });
    const pending = held.data?.tools.find((t) => t.id === 'drift/say')?.versions.find((v) => v.version === '1.0.0');
    expect((await run(KEYS.acmeAdmin, 'drift/say', '')).status).not.toBe('SUCCEEDED');
    expect(pending).toMatchObject({ state: 'DISABLED', pendingDescriptorHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const approve = `mutation { approveToolVersion(input: { toolId: "drift/say", version: "1.0.0", descriptorHash: "${pending?.pendingDescriptorHash}" }) { id } }`;
    expect(codesOf(await graphql(server.url, approve, { key: KEYS.acmeAdmin }))).toEqual(['FORBIDDEN']);
    expect(codesOf(await graphql(server.url, approve, { key: KEYS.platformAdmin }))).toEqual([]);
    const after = await run(KEYS.acmeAdmin, 'drift/say', '');
    expect({ status: after.status, output: after.output, error: after.error }).toEqual({ status: 'SUCCEEDED', output: 'new', error: null });
  }, 60_000);
});
