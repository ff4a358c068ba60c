import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, codesOf, graphql, type RunningGateway, runCliAsync, startGateway } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { type LocalRegistry, publish, startVerdaccio } from '../support/verdaccio';

/**
 * The plugin lifecycle against a real npm registry: versions installed side by side from Verdaccio,
 * run pinned and unpinned, a broken release refused at install, a tampered install refused at load,
 * all of it surviving a restart, and a rollback that is one state change.
 */
const ADMIN = 'plugin-admin-key-000001';
const POLICY = `
roles:
  admin:
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - key: \${ADMIN_KEY}
    tenant: acme
    subject: admin
    roles: [admin]
`;

const DESCRIPTION = 'Reports the current weather for a city. Use it for weather questions; not for forecasts.';
/** The same descriptor in every release: only the code (what the answer says) tells them apart. */
const release = (version: string, body: string) => ({
  folder: `weather-${version}`,
  packageJson: { ...pluginPackage('@fixtures/weather', version), peerDependencies: { '@toolgate/sdk': '^0.1.0' } },
  entry: body,
});
const RELEASES = [
  // 1.0.0 is plain objects; 1.1.0 uses the sdk it leaves a peer (the gateway provides it).
  release('1.0.0', `exports.tools = [{ ...${toolSource('current', DESCRIPTION)}, run: async (args) => ({ text: '1.0.0 says ' + args.text }) }];`),
  release(
    '1.1.0',
    `const { defineTool } = require('@toolgate/sdk');\nexports.tools = [defineTool({ ...${toolSource('current', DESCRIPTION)}, run: async (args) => ({ text: '1.1.0 says ' + args.text }) })];`,
  ),
  // An invalid manifest: a risk the host does not know.
  release('1.2.0', `exports.tools = [{ ...${toolSource('current', DESCRIPTION)}, permissions: { scopes: [], risk: 'nuclear' } }];`),
];

const EXECUTE = `mutation($plan: PlanInput!) { executePlan(plan: $plan) { status steps { tool status output error { code message } } } }`;
const PLUGINS = '{ plugins { packageName version status codeHash error { code message } } }';
type Step = { tool: string; status: string; output: { text: string } | null; error: { code: string; message: string } | null };
type PluginRow = { packageName: string; version: string; status: string; codeHash: string | null; error: { code: string; message: string } | null };

describe('installing and upgrading plugins from an npm registry', () => {
  let work: string;
  let registry: LocalRegistry;
  let gateway: RunningGateway;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runCliAsync(args, env, work);
  const install = (spec: string, ...flags: string[]) => cli('plugins', 'install', spec, '--registry', registry.url, ...flags);
  const call = async (tool: string) => {
    const response = await graphql<{ executePlan: { status: string; steps: Step[] } }>(gateway.url, EXECUTE, {
      key: ADMIN,
      variables: { plan: { steps: [{ id: 's1', tool, arguments: { text: 'Oslo' } }] } },
    });
    return { codes: codesOf(response), step: response.data?.executePlan.steps[0] };
  };
  const answerOf = async (tool: string) => (await call(tool)).step?.output?.text;
  const plugins = async () => (await graphql<{ plugins: PluginRow[] }>(gateway.url, PLUGINS, { key: ADMIN })).data?.plugins.filter((p) => p.packageName === '@fixtures/weather') ?? [];
  const reload = async () => {
    const response = await graphql(gateway.url, 'mutation { reloadPlugins { loaded { packageName version } failed { packageName version } } }', { key: ADMIN });
    expect(response.errors).toBeUndefined();
  };
  const installedCopy = (version: string) => join(work, 'data', 'plugins', '@fixtures', 'weather', version, 'node_modules', '@fixtures', 'weather', 'index.js');

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-install-'));
    registry = await startVerdaccio(join(work, 'registry'));
    for (const plugin of RELEASES) publish(writePlugin(join(work, 'releases'), plugin), registry);
    mkdirSync(join(work, 'no-plugins'));
    writeFileSync(join(work, 'toolgate.config.yaml'), POLICY);
    env = { ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(work, 'no-plugins'), TOOLGATE_CONFIG: join(work, 'toolgate.config.yaml'), ADMIN_KEY: ADMIN };
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('installs 1.0.0 from the registry and runs it', async () => {
    const installed = await install('@fixtures/weather@1.0.0');
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toContain('installed @fixtures/weather@1.0.0');
    expect(installed.stdout).toContain('tools: weather/current');
    gateway = await startGateway(env, work);
    expect(await answerOf('weather/current')).toBe('1.0.0 says Oslo');
  }, 120_000);

  it('installs 1.1.0 beside it: both run pinned, unpinned calls get 1.1.0', async () => {
    const installed = await install('@fixtures/weather@^1.1.0 <1.2.0');
    expect(installed.status).toBe(0);
    await reload();
    expect(await answerOf('weather/current@1.0.0')).toBe('1.0.0 says Oslo');
    expect(await answerOf('weather/current@1.1.0')).toBe('1.1.0 says Oslo');
    expect(await answerOf('weather/current')).toBe('1.1.0 says Oslo');
    const rows = await plugins();
    expect(rows.map((p) => [p.version, p.status]).sort()).toEqual([
      ['1.0.0', 'LOADED'],
      ['1.1.0', 'LOADED'],
    ]);
    expect(rows.every((p) => /^[0-9a-f]{64}$/.test(p.codeHash ?? ''))).toBe(true);
  }, 120_000);

  it('refuses the broken 1.2.0 at install, keeps nothing of it, and 1.1.0 keeps serving', async () => {
    const refused = await install('@fixtures/weather@1.2.0');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('PLUGIN_INVALID');
    expect(refused.stderr).toContain('/tools/0/permissions/risk');
    const listed = JSON.parse((await cli('plugins', 'installed', '--json')).stdout) as { version: string; intact: boolean }[];
    expect(listed.map((p) => [p.version, p.intact])).toEqual([
      ['1.0.0', true],
      ['1.1.0', true],
    ]);
    await reload();
    expect(await answerOf('weather/current')).toBe('1.1.0 says Oslo');
    expect((await plugins()).map((p) => p.version).sort()).toEqual(['1.0.0', '1.1.0']);
  }, 120_000);

  it('refuses an install whose code was changed behind its back (same descriptor), and serves it again once reinstalled', async () => {
    const file = installedCopy('1.1.0');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'1.1.0 says '", "'tampered: '"));
    await reload();
    const row = (await plugins()).find((p) => p.version === '1.1.0');
    expect(row).toMatchObject({ status: 'FAILED', error: { code: 'PLUGIN_INVALID' } });
    expect(row?.error?.message).toContain('not the ones installed');
    const pinned = await call('weather/current@1.1.0');
    expect(pinned.step?.output?.text ?? '').not.toContain('tampered');
    expect(pinned.codes.length > 0 || pinned.step?.status === 'FAILED').toBe(true);
    // The unpinned call falls back to the version that is still what was installed.
    expect(await answerOf('weather/current')).toBe('1.0.0 says Oslo');

    const listed = JSON.parse((await cli('plugins', 'installed', '--json')).stdout) as { version: string; intact: boolean }[];
    expect(listed.find((p) => p.version === '1.1.0')?.intact).toBe(false);
    expect((await install('@fixtures/weather@1.1.0', '--force')).status).toBe(0);
    await reload();
    expect(await answerOf('weather/current@1.1.0')).toBe('1.1.0 says Oslo');
  }, 120_000);

  it('keeps every version after a restart', async () => {
    await gateway.stop();
    gateway = await startGateway(env, work);
    expect(await answerOf('weather/current@1.0.0')).toBe('1.0.0 says Oslo');
    expect(await answerOf('weather/current@1.1.0')).toBe('1.1.0 says Oslo');
    expect(await answerOf('weather/current')).toBe('1.1.0 says Oslo');
    expect((await plugins()).map((p) => [p.version, p.status]).sort()).toEqual([
      ['1.0.0', 'LOADED'],
      ['1.1.0', 'LOADED'],
    ]);
  }, 120_000);

  it('rolls back by disabling 1.1.0: 1.0.0 serves, also after another restart', async () => {
    const set = await graphql(gateway.url, 'mutation { setToolVersionState(input: { toolId: "weather/current", version: "1.1.0", state: DISABLED, scope: PLATFORM }) { id } }', { key: ADMIN });
    expect(set.errors).toBeUndefined();
    expect(await answerOf('weather/current')).toBe('1.0.0 says Oslo');
    expect((await call('weather/current@1.1.0')).step?.output).toBeFalsy();
    await gateway.stop();
    gateway = await startGateway(env, work);
    expect(await answerOf('weather/current')).toBe('1.0.0 says Oslo');
  }, 120_000);

  it('uninstalls a version: it is MISSING after a reload and the other keeps serving', async () => {
    const removed = await cli('plugins', 'uninstall', '@fixtures/weather@1.1.0');
    expect(removed.status).toBe(0);
    await reload();
    expect((await plugins()).map((p) => [p.version, p.status]).sort()).toEqual([
      ['1.0.0', 'LOADED'],
      ['1.1.0', 'MISSING'],
    ]);
    expect(await answerOf('weather/current')).toBe('1.0.0 says Oslo');
    const again = await cli('plugins', 'uninstall', '@fixtures/weather@1.1.0');
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('not installed');
  }, 120_000);

  it('names what is wrong with a bad spec and installs nothing', async () => {
    const missing = await install('@fixtures/no-such-plugin@1.0.0');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('INVALID_ARGUMENTS');
    const optionLike = await cli('plugins', 'install', '--', '--registry=http://evil.example');
    expect(optionLike.status).not.toBe(0);
    expect(optionLike.stderr).toContain('cannot start with "-"');
    const listed = JSON.parse((await cli('plugins', 'installed', '--json')).stdout) as { version: string }[];
    expect(listed.map((p) => p.version)).toEqual(['1.0.0']);
  }, 120_000);
});
