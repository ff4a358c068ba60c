import { existsSync, type FSWatcher, mkdtempSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { CatalogService, type PluginLoadReport } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { fetchLocalModelIfMissing } from '../local-model.fetch';

/** Editors write a file in bursts (temp file, rename, chmod): one reload per burst. */
const SETTLE_MS = 300;
const IGNORED = new Set(['node_modules', '.git', '.test-dist']);

function reportLines(report: PluginLoadReport): string[] {
  return [
    ...report.loaded.map((plugin) => `  loaded ${plugin.packageName}@${plugin.version}: ${plugin.toolCount} tool(s)`),
    ...report.failed.map(
      (plugin) => `  FAILED ${plugin.packageName}@${plugin.version}: ${plugin.error?.message ?? ''}${(plugin.error?.details ?? []).map((d) => `\n    ${d.path}: ${d.message}`).join('')}`,
    ),
  ];
}

export function registerDevCommand(program: Command): void {
  program
    .command('dev [dir]')
    .description(
      'serve one plugin package under development on 127.0.0.1: a fresh catalog, reloaded into fresh workers whenever a file changes, descriptor edits taken as they are (never for production)',
    )
    .option('-p, --port <port>', 'port (default: $PORT or 4000)')
    .action(async (dir: string | undefined, options: { port?: string }) => {
      const pluginDir = resolve(dir ?? '.');
      if (!existsSync(join(pluginDir, 'package.json'))) {
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${pluginDir} has no package.json: give the plugin package's folder`, [{ path: '[dir]', message: 'not a package folder' }]);
      }
      const data = mkdtempSync(join(tmpdir(), 'toolgate-dev-'));
      // Loopback only, no keys, a throwaway catalog: what the author edits is what serves, and nobody else can reach it.
      const { DATABASE_URL: _database, TOOLGATE_CONFIG: _policy, ...inherited } = process.env;
      const env = {
        ...inherited,
        HOST: '127.0.0.1',
        ...(options.port ? { PORT: options.port } : {}),
        TOOLGATE_DATA_DIR: data,
        TOOLGATE_PLUGIN_DIRS: pluginDir,
        TOOLGATE_PLUGIN_IMPORT_CACHE: 'off',
      };
      const config = loadConfig(env);
      config.registry = { ...config.registry, followDescriptorEdits: true, pluginInstallDir: null, policyFile: null };
      fetchLocalModelIfMissing(config.retrieval);
      const { startServer } = await import('../../gateway.server');
      const app = await startServer(config);
      const catalog = app.get(CatalogService);
      process.stderr.write(`toolgate dev: serving ${pluginDir} (catalog in ${data}); edits reload it\n${reportLines(await catalog.loadPlugins()).join('\n')}\n`);

      let timer: NodeJS.Timeout | undefined;
      let reloading = Promise.resolve();
      const reload = () => {
        reloading = reloading.then(async () => {
          const report = await catalog.loadPlugins();
          process.stderr.write(`reloaded ${new Date().toISOString()}\n${reportLines(report).join('\n')}\n`);
        });
      };
      const watcher: FSWatcher = watch(pluginDir, { recursive: true }, (_event, file) => {
        if (
          file &&
          String(file)
            .split(sep)
            .some((part) => IGNORED.has(part))
        )
          return;
        clearTimeout(timer);
        timer = setTimeout(reload, SETTLE_MS);
      });
      const stop = async () => {
        watcher.close();
        clearTimeout(timer);
        await reloading;
        await app.close();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
