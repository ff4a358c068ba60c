import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DEFAULT_ISOLATION_OPTIONS, type Invocation, IsolatedToolInvoker, ResilientToolInvoker } from '@toolgate/executor';
import { CatalogService, RegistryModule, ToolVersionState } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { testDatabase } from '../support/databases';
import { echoPlugin, pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';

/** A runaway plugin loaded by the real registry: `spin` never yields, within a 300 ms limit. */
const spinPlugin = {
  folder: 'spin',
  packageJson: pluginPackage('@fixtures/spin', '1.0.0'),
  entry: `exports.tools = [{ ...${toolSource('spin')}, limits: { timeoutMs: 300, maxConcurrency: 2, retries: 2, idempotent: false }, run: () => { for (;;) {} } }];`,
};

/** An ES module plugin (`"type": "module"`), and one whose entry awaits at top level, which no plugin process can load. */
const esmPlugin = {
  folder: 'esm',
  packageJson: { ...pluginPackage('@fixtures/esm', '1.0.0'), type: 'module' },
  entry: `const greeting = 'esm says ';\nexport const tools = [{ ...${toolSource('say')}, run: async (args) => ({ text: greeting + args.text }) }];`,
};
const topLevelAwaitPlugin = {
  folder: 'tla',
  packageJson: { ...pluginPackage('@fixtures/tla', '1.0.0'), type: 'module' },
  entry: `const greeting = await Promise.resolve('tla says ');\nexport const tools = [{ ...${toolSource('say')}, run: async (args) => ({ text: greeting + args.text }) }];`,
};

let sequence = 0;
const call = (ref: string, args: Record<string, unknown> = {}): Invocation => {
  const [toolId, version] = ref.split('@');
  sequence++;
  return {
    toolId,
    version,
    arguments: args,
    principal: { tenant: 'acme', subject: 'alice' },
    runId: 'run-int',
    stepId: `s${sequence}`,
    attempt: 1,
    callId: `c${sequence}`,
    idempotencyKey: `k${sequence}`,
    signal: new AbortController().signal,
  };
};

describe('isolated execution of catalog plugins (SQLite registry)', () => {
  let app: INestApplicationContext;
  let drop: () => Promise<void>;
  let catalog: CatalogService;
  let isolated: IsolatedToolInvoker;
  let invoker: ResilientToolInvoker;
  let pluginsDir: string;

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), 'toolgate-isolation-int-'));
    pluginsDir = join(work, 'plugins');
    writePlugin(pluginsDir, echoPlugin('1.0.0'));
    writePlugin(pluginsDir, spinPlugin);
    writePlugin(pluginsDir, esmPlugin);
    writePlugin(pluginsDir, topLevelAwaitPlugin);
    const db = await testDatabase('sqlite');
    drop = db.drop;
    const moduleRef = await Test.createTestingModule({
      imports: [RegistryModule.forRoot({ database: db.options, pluginDirs: [pluginsDir], policyFile: null, newVersionState: ToolVersionState.ACTIVE })],
    }).compile();
    app = await moduleRef.init();
    catalog = app.get(CatalogService);
    await catalog.loadPlugins();
    isolated = new IsolatedToolInvoker(catalog, { ...DEFAULT_ISOLATION_OPTIONS, heapMb: 64, poolSize: 1, killGraceMs: 50, netHosts: [] });
    invoker = new ResilientToolInvoker(isolated, catalog);
    // Thread start and module loading happen before any call's timeout starts.
    await Promise.all([isolated.warm('echo/say', '1.0.0'), isolated.warm('spin/spin', '1.0.0')]);
  });

  afterAll(async () => {
    await invoker?.drain(1000);
    await isolated?.close();
    await app?.close();
    await drop?.();
  });

  it('loads and runs an ES module plugin; refuses one with top-level await at every load, naming why', async () => {
    expect(await invoker.invoke(call('esm/say@1.0.0', { text: 'hi' }))).toEqual({ text: 'esm says hi' });
    for (let load = 0; load < 2; load++) {
      const tla = catalog.listPlugins().find((plugin) => plugin.packageName === '@fixtures/tla');
      expect(tla).toMatchObject({ status: 'FAILED', error: { code: ErrorCode.PLUGIN_INVALID } });
      expect(tla?.error?.details[0]?.message).toContain('top-level await');
      await catalog.loadPlugins();
    }
    await expect(invoker.invoke(call('tla/say@1.0.0', { text: 'hi' }))).rejects.toMatchObject({ code: ErrorCode.TOOL_NOT_FOUND });
  });

  it('finds each version’s package folder through the catalog and runs its code in a worker', async () => {
    expect(catalog.packageDir('echo/say', '1.0.0')).toBe(join(pluginsDir, 'echo-1.0.0'));
    expect(catalog.packageDir('echo/say', '9.9.9')).toBeUndefined();
    await expect(invoker.invoke(call('echo/say@1.0.0', { text: 'hello' }))).resolves.toEqual({ text: 'hello' });
  });

  it('stops a runaway at its manifest timeout, does not retry it (not idempotent), and keeps serving other plugins meanwhile', async () => {
    const attempts: number[] = [];
    const runaway = invoker.invoke({ ...call('spin/spin@1.0.0'), onAttempt: (r) => void attempts.push(r.attempt) }).catch((e: unknown) => e);
    const others = await Promise.all([1, 2, 3].map((n) => invoker.invoke(call('echo/say@1.0.0', { text: `n${n}` }))));
    expect(others).toEqual([{ text: 'n1' }, { text: 'n2' }, { text: 'n3' }]);
    const error = await runaway;
    expect(ToolgateError.is(error, ErrorCode.TIMEOUT)).toBe(true);
    expect(attempts).toEqual([1]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isolated.workerCounts()[join(pluginsDir, 'spin', 'index.js')]).toBe(0);
    expect(invoker.breakerState('spin/spin', '1.0.0', 'acme')).toMatchObject({ state: 'CLOSED', failures: 1, lastFailure: { code: ErrorCode.TIMEOUT } });
  });
});
