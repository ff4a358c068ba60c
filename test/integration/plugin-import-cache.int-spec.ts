import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogService, type Principal, ToolVersionState } from '@toolgate/registry';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

/**
 * The plugin import cache against real import processes: a package whose files are unchanged is not
 * imported again, and any change to what the import read (its files, a file added to it, a dependency
 * it loaded from outside, a variable it declares) imports afresh, so descriptor drift is caught exactly
 * as without the cache. The fixture's description carries a stamp made at import: the same stamp means
 * the import was not run again.
 */

const ADMIN: Principal = { tenant: 'local', subject: 'local-admin', roles: ['toolgate:local-admin'] };

const STAMPED_ENTRY = `const helper = require('stamp-helper'); exports.tools = [${toolSource('say', 'Says the text back. Imported at stamp STAMP. Use it to test the import cache; not for real work.')}].map((t) => ({ ...t, description: t.description.replace('STAMP', String(process.hrtime.bigint()) + helper.suffix + (process.env.STAMP_FLAVOUR ?? '')) }));`;

describe('plugin import cache', () => {
  let work: string;
  let pluginDir: string;
  let cacheDir: string;
  let helperFile: string;
  let registry: RegistryHarness;

  const catalog = () => registry.app.get(CatalogService);
  const version = () => catalog().resolve('stamped/say@1.0.0', ADMIN).version;
  /**
   * What the last load imported, as the catalog saw it: the pinned descriptor is kept, so a fresh
   * import (a new stamp) shows as a pending descriptor hash that changes with every import.
   */
  const reload = async () => {
    await catalog().loadPlugins();
    return version().pendingDescriptorHash;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-import-cache-'));
    pluginDir = join(work, 'plugins');
    cacheDir = join(work, 'cache');
    // A dependency outside the package, where Node resolves it from (an ancestor's node_modules), as a hoisted one is.
    mkdirSync(join(work, 'node_modules', 'stamp-helper'), { recursive: true });
    helperFile = join(work, 'node_modules', 'stamp-helper', 'index.js');
    writeFileSync(join(work, 'node_modules', 'stamp-helper', 'package.json'), JSON.stringify({ name: 'stamp-helper', version: '1.0.0', main: 'index.js' }));
    writeFileSync(helperFile, "exports.suffix = '';\n");
    writePlugin(pluginDir, {
      folder: 'stamped',
      packageJson: { ...pluginPackage('@fixtures/stamped', '1.0.0'), toolgate: { sdk: '^0.1.0', tools: './index.js', env: ['STAMP_FLAVOUR'] } },
      entry: STAMPED_ENTRY,
    });
    registry = await startRegistry('sqlite', { pluginDirs: [pluginDir], pluginImportCache: cacheDir });
  });

  afterAll(async () => {
    await registry?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('keeps a successful import and serves it while nothing it read has changed, across reloads and restarts', async () => {
    expect(version()).toMatchObject({ state: ToolVersionState.ACTIVE, pendingDescriptorHash: null });
    expect(readdirSync(cacheDir).filter((file) => file.endsWith('.json'))).toHaveLength(1);
    // Imported again, the stamp would differ: the descriptor would have drifted.
    await expect(reload()).resolves.toBeNull();
    await registry.restart({ pluginDirs: [pluginDir], pluginImportCache: cacheDir });
    expect(version()).toMatchObject({ state: ToolVersionState.ACTIVE, pendingDescriptorHash: null });
  });

  it('imports afresh when a file of the package changes, and the changed descriptor is drift as ever', async () => {
    appendFileSync(join(pluginDir, 'stamped', 'index.js'), '\n// republished without a version bump\n');
    const pending = await reload();
    expect(pending).toMatch(/^[0-9a-f]{64}$/);
    expect(version()).toMatchObject({ state: ToolVersionState.DISABLED, stateReason: expect.stringContaining('descriptor changed') });
    await expect(reload()).resolves.toBe(pending);
  });

  it('imports afresh when a file is added to the package, when a dependency it loaded from outside changes, and when a declared variable does', async () => {
    let last = await reload();
    await expect(reload()).resolves.toBe(last);
    for (const change of [
      () => writeFileSync(join(pluginDir, 'stamped', 'extra-tool.js'), 'module.exports = {};\n'),
      () => writeFileSync(helperFile, "exports.suffix = ' (helper 1.0.1)';\n"),
      () => {
        process.env.STAMP_FLAVOUR = ' flavoured';
      },
    ]) {
      change();
      const fresh = await reload();
      expect(fresh).not.toBe(last);
      await expect(reload()).resolves.toBe(fresh);
      last = fresh;
    }
    delete process.env.STAMP_FLAVOUR;
  });

  it('never keeps a failed import: a broken package is imported (and reported) every time', async () => {
    writePlugin(pluginDir, { folder: 'broken', packageJson: pluginPackage('@fixtures/broken-cache', '1.0.0'), entry: "throw new Error('broken at import');" });
    const kept = readdirSync(cacheDir).length;
    await catalog().loadPlugins();
    await catalog().loadPlugins();
    expect(readdirSync(cacheDir).length).toBe(kept);
    expect(
      catalog()
        .listPlugins()
        .find((p) => p.packageName === '@fixtures/broken-cache'),
    ).toMatchObject({ error: { message: expect.stringContaining('broken at import') } });
  });

  it('reads a forged cache entry as a miss, never as tools', async () => {
    const before = await reload();
    for (const file of readdirSync(cacheDir)) writeFileSync(join(cacheDir, file), JSON.stringify({ format: 1, files: [], outcome: { kind: 'tools', tools: [], issues: [] } }));
    const after = await reload();
    expect(after).toMatch(/^[0-9a-f]{64}$/);
    expect(after).not.toBe(before);
    expect(version().version).toBe('1.0.0');
  });
});
