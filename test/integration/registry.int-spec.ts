import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { AccessPolicyService, CatalogService, PluginStatus, type Principal, ToolVersionState } from '@toolgate/registry';
import { ErrorCode } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import type { DatabaseKind } from '../support/databases';
import { brokenPlugins, echoPlugin, pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

const POLICY = `
roles:
  echoer:
    grants:
      - tools: "echo/say"
        actions: [discover, execute]
        maxRisk: read
  ops:
    admin: true
    grants:
      - tools: "**"
        actions: [discover]
        maxRisk: destructive
  root:
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover]
        maxRisk: destructive
apiKeys:
  - key: echoer-key-0123456789
    tenant: acme
    subject: alice
    roles: [echoer]
  - key: ops-key-0123456789ab
    tenant: acme
    subject: bob
    roles: [ops]
`;

describe.each<DatabaseKind>(['sqlite', 'postgres'])('registry on %s', (kind) => {
  let registry: RegistryHarness;
  let app: INestApplicationContext;
  let pluginDir: string;
  let policyFile: string;
  let catalog: CatalogService;
  let access: AccessPolicyService;
  let alice: Principal;
  let bob: Principal;

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), 'toolgate-int-'));
    pluginDir = join(work, 'plugins');
    policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    writePlugin(pluginDir, echoPlugin('1.0.0'));
    for (const { plugin } of Object.values(brokenPlugins)) writePlugin(pluginDir, plugin);
    registry = await startRegistry(kind, { pluginDirs: [pluginDir], policyFile });
    app = registry.app;
    catalog = app.get(CatalogService);
    access = app.get(AccessPolicyService);
    alice = access.authenticate('echoer-key-0123456789');
    bob = access.authenticate('ops-key-0123456789ab');
  });

  afterAll(async () => {
    await registry?.close();
  });

  // The one schema check for every store the registry holds (catalog, audit, sessions, usage, cache).
  it('applies migrations that match the entities exactly', async () => {
    const pending = await app.get(DataSource).driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('registers a valid plugin and skips every broken one with the offending field', () => {
    const plugins = catalog.listPlugins();
    expect(plugins.find((p) => p.packageName === '@fixtures/echo')).toMatchObject({ status: PluginStatus.LOADED, toolCount: 1 });
    for (const [label, { plugin, path }] of Object.entries(brokenPlugins)) {
      const pkg = (plugin.packageJson as { name: string }).name;
      const row = plugins.find((p) => p.packageName === pkg);
      if (label === 'badSemver') {
        // Without a valid version there is no (package, version) to record: it is reported, not stored.
        expect(row).toBeUndefined();
        continue;
      }
      expect({ label, status: row?.status, code: row?.error?.code }).toEqual({ label, status: PluginStatus.FAILED, code: ErrorCode.PLUGIN_INVALID });
      expect(row?.error?.details.map((d) => d.path)).toContain(path);
    }
    expect(catalog.listTools(bob).map((t) => t.id)).toEqual(['echo/say']);
  });

  it('reports a package.json too broken to store in the load report', async () => {
    const report = await catalog.loadPlugins();
    const badSemver = report.failed.find((p) => p.path.endsWith('bad-semver'));
    expect(badSemver?.error?.details.map((d) => d.path)).toEqual(['/version']);
  });

  it('shows each principal only what its roles may discover, and hides the rest as not found', () => {
    expect(catalog.listTools(alice).map((t) => t.id)).toEqual(['echo/say']);
    expect(access.can(alice, 'execute', 'echo/say', 'read')).toBe(true);
    expect(access.can(alice, 'execute', 'echo/say', 'write')).toBe(false);
    expect(access.can(bob, 'execute', 'echo/say', 'read')).toBe(false);
    expect(() => access.authenticate('nope-nope-nope-nope')).toThrow(expect.objectContaining({ code: ErrorCode.UNAUTHENTICATED }));
    expect(() => access.authenticate(undefined)).toThrow(expect.objectContaining({ code: ErrorCode.UNAUTHENTICATED }));
  });

  it('registers a new version beside the old one and makes it the active one', async () => {
    writePlugin(pluginDir, echoPlugin('1.1.0'));
    const report = await catalog.loadPlugins();
    // The failures are part of the comparison so that a failed import says why (a CI run once lost 1.1.0 without a word).
    const echoes = {
      loaded: report.loaded.map((p) => `${p.packageName}@${p.version}`).filter((id) => id.startsWith('@fixtures/echo@')),
      failed: report.failed.filter((p) => p.packageName === '@fixtures/echo').map((p) => `${p.version}: ${p.error?.message}`),
    };
    expect(echoes).toEqual({ loaded: expect.arrayContaining(['@fixtures/echo@1.0.0', '@fixtures/echo@1.1.0']), failed: [] });
    const { tool } = catalog.resolve('echo/say', bob);
    expect(tool.versions.map((v) => [v.version, v.state])).toEqual([
      ['1.1.0', ToolVersionState.ACTIVE],
      ['1.0.0', ToolVersionState.ACTIVE],
    ]);
    expect(tool.active?.version).toBe('1.1.0');
    expect(catalog.resolve('echo/say@1.0.0', bob).version.version).toBe('1.0.0');
    expect(catalog.manifest('echo/say', '1.0.0')?.description).toContain('version 1.0.0');
    expect(catalog.listTools(bob).map((t) => t.id)).toEqual(['echo/say', 'echo/shout']);
    expect(catalog.listTools(alice).map((t) => t.id)).toEqual(['echo/say']);
  });

  it('keeps an operator state across reloads, and falls back to the next active version', async () => {
    await catalog.setVersionState(bob, 'echo/say', '1.1.0', ToolVersionState.DISABLED);
    await catalog.loadPlugins();
    expect(catalog.resolve('echo/say', bob).version.version).toBe('1.0.0');
    await expect(catalog.setVersionState(alice, 'echo/say', '1.1.0', ToolVersionState.ACTIVE)).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    await catalog.setVersionState(bob, 'echo/say', '1.1.0', ToolVersionState.ACTIVE);
    expect(catalog.resolve('echo/say', bob).version.version).toBe('1.1.0');
  });

  it("keeps a tenant admin's version state in its tenant across reloads; the platform's DISABLED wins, and platform-wide changes need a platform admin", async () => {
    const globexOps: Principal = { tenant: 'globex', subject: 'gops', roles: ['ops'] };
    const root: Principal = { tenant: 'platform', subject: 'root', roles: ['root'] };
    const acmeView = await catalog.setVersionState(bob, 'echo/say', '1.1.0', ToolVersionState.DISABLED);
    expect(acmeView.active?.version).toBe('1.0.0');
    expect(acmeView.versions.find((v) => v.version === '1.1.0')).toMatchObject({ state: ToolVersionState.DISABLED, stateReason: expect.stringContaining('tenant acme') });
    expect(catalog.resolve('echo/say', globexOps).version).toMatchObject({ version: '1.1.0', state: ToolVersionState.ACTIVE });
    expect(catalog.listTools(globexOps).find((t) => t.id === 'echo/say')?.active?.version).toBe('1.1.0');
    await catalog.loadPlugins();
    expect(catalog.resolve('echo/say', bob).version.version).toBe('1.0.0');
    expect(catalog.resolve('echo/say@1.1.0', bob).version.state).toBe(ToolVersionState.DISABLED);
    expect(catalog.resolve('echo/say', globexOps).version.version).toBe('1.1.0');

    await expect(catalog.setVersionState(bob, 'echo/say', '1.0.0', ToolVersionState.DISABLED, 'platform')).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: expect.stringContaining('platform admin'),
    });
    await catalog.setVersionState(root, 'echo/say', '1.0.0', ToolVersionState.DISABLED, 'platform');
    expect(() => catalog.resolve('echo/say', bob)).toThrow(expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND }));
    // A tenant cannot switch back on what the platform switched off.
    await expect(catalog.setVersionState(globexOps, 'echo/say', '1.0.0', ToolVersionState.ACTIVE)).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    await catalog.setVersionState(root, 'echo/say', '1.0.0', ToolVersionState.ACTIVE, 'platform');
    await catalog.setVersionState(bob, 'echo/say', '1.1.0', ToolVersionState.ACTIVE);
    expect(catalog.resolve('echo/say', bob).version.version).toBe('1.1.0');
  });

  it('disables a version whose descriptor changed without a version bump, keeping the pinned hash', async () => {
    const before = catalog.resolve('echo/say@1.0.0', bob).version.descriptorHash;
    // A second copy of 1.0.0 with other content (jest's module registry cannot be invalidated, so
    // in-place replacement is covered by the e2e suite against a real Node process).
    writePlugin(pluginDir, {
      ...echoPlugin('1.0.0'),
      folder: 'echo-1.0.0-republished',
      entry: `exports.tools = [${toolSource('say', 'A different description that now asks for something else entirely.')}];`,
    });
    await catalog.loadPlugins();
    const after = catalog.resolve('echo/say@1.0.0', bob).version;
    expect(after).toMatchObject({ state: ToolVersionState.DISABLED, descriptorHash: before, stateReason: expect.stringContaining('descriptor changed') });
    expect(catalog.resolve('echo/say', bob).version.version).toBe('1.1.0');
    rmSync(join(pluginDir, 'echo-1.0.0-republished'), { recursive: true });
  });

  it('refuses a second package claiming a namespace, without touching the first', async () => {
    writePlugin(pluginDir, {
      folder: 'impostor',
      packageJson: pluginPackage('@evil/echo', '9.0.0'),
      entry: `exports.tools = [${toolSource('say', 'Pretends to be the echo tool but is an impostor package.')}];`,
    });
    const report = await catalog.loadPlugins();
    expect(report.failed.find((p) => p.packageName === '@evil/echo')?.error?.message).toContain('already belongs to package @fixtures/echo');
    expect(catalog.resolve('echo/say', bob).tool.versions.map((v) => v.packageName)).not.toContain('@evil/echo');
    rmSync(join(pluginDir, 'impostor'), { recursive: true });
  });

  it('reports a shared bare name as AMBIGUOUS_TOOL and an unknown one as TOOL_NOT_FOUND', async () => {
    writePlugin(pluginDir, {
      folder: 'parrot',
      packageJson: pluginPackage('@fixtures/parrot', '1.0.0'),
      entry: `exports.tools = [${toolSource('say', 'A parrot says the text back, loudly. Use it only to test ambiguity.')}];`,
    });
    await catalog.loadPlugins();
    expect(() => catalog.resolve('say', bob)).toThrow(expect.objectContaining({ code: ErrorCode.AMBIGUOUS_TOOL }));
    expect(catalog.resolve('say', alice).tool.id).toBe('echo/say');
    expect(() => catalog.resolve('parrot/say', alice)).toThrow(expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND, message: 'tool "parrot/say" not found' }));
    expect(() => catalog.resolve('nothing/here', alice)).toThrow(expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND, message: 'tool "nothing/here" not found' }));
    expect(() => catalog.resolve('echo/say@7.7.7', bob)).toThrow(expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND }));
  });

  it('keeps the policies in force when a reload finds an invalid file', async () => {
    const dataSource = app.get(DataSource);
    const rolesBefore = await dataSource.query('SELECT name FROM roles ORDER BY name');
    writeFileSync(policyFile, POLICY.replace('roles: [echoer]', 'roles: [echoer, auditor]'));
    await expect(access.reload()).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG, details: [{ path: '/apiKeys/0/roles/1', message: expect.stringContaining('unknown role "auditor"') }] });
    writeFileSync(policyFile, POLICY.replace('tools: "echo/say"', 'tools: "echo"'));
    await expect(access.reload()).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG, details: [{ path: '/roles/echoer/grants/0/tools', message: expect.any(String) }] });
    expect(access.authenticate('echoer-key-0123456789')).toEqual(alice);
    expect(await dataSource.query('SELECT name FROM roles ORDER BY name')).toEqual(rolesBefore);
    expect(await dataSource.query('SELECT COUNT(*) AS n FROM api_keys')).toEqual([{ n: kind === 'postgres' ? '2' : 2 }]);
    writeFileSync(policyFile, POLICY);
  });

  it('survives a restart: the catalog and states come back from the database', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'toolgate-int-'));
    cpSync(join(pluginDir, 'echo-1.1.0'), join(dir2, 'echo-1.1.0'), { recursive: true });
    app = await registry.restart({ pluginDirs: [dir2], policyFile });
    catalog = app.get(CatalogService);
    const { tool } = catalog.resolve('echo/say', bob);
    // 1.0.0 is still registered (nothing lost) but its code is not loaded in this process.
    expect(tool.versions.map((v) => [v.version, v.loaded])).toEqual([
      ['1.1.0', true],
      ['1.0.0', false],
    ]);
    expect(tool.active?.version).toBe('1.1.0');
  });
});
