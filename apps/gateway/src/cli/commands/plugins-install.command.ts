import { installPlugin, listInstalledPlugins, uninstallPlugin } from '@toolgate/registry';
import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { printJson, printTable } from '../cli.output';

/** Where installs go: the gateway's data directory (TOOLGATE_DATA_DIR/plugins). */
function installDir(): string {
  const dir = loadConfig().registry.pluginInstallDir;
  if (!dir) throw new Error('no plugin install folder is configured');
  return dir;
}

const RELOAD_HINT = 'a running gateway serves it after `mutation { reloadPlugins { loaded { packageName version } } }` or a restart';

export function registerPluginsInstallCommands(plugins: Command): void {
  plugins
    .command('install <spec>')
    .description('install a plugin version into a folder of its own (npm spec: name, name@version, name@range, or a .tgz); other versions stay installed')
    .option('--registry <url>', 'npm registry to install from (default: your npm config)')
    .option('--force', 'replace the version if it is already installed')
    .option('--scripts', "run the package's install scripts (off: a plugin is untrusted code until it is installed)")
    .option('--json', 'print JSON only')
    .action(async (spec: string, options: { registry?: string; force?: boolean; scripts?: boolean; json?: boolean }) => {
      const { registry } = loadConfig();
      const installed = await installPlugin(spec, {
        installDir: installDir(),
        ...(options.registry ? { registry: options.registry } : {}),
        force: options.force === true,
        scripts: options.scripts === true,
        ...(registry.pluginImport ? { importLimits: registry.pluginImport } : {}),
      });
      if (options.json) return printJson(installed);
      process.stdout.write(
        `installed ${installed.record.name}@${installed.record.version} in ${installed.dir}\n  tools: ${installed.toolIds.join(', ')}\n  code hash: ${installed.record.codeHash}\n  ${RELOAD_HINT}\n`,
      );
    });

  plugins
    .command('uninstall <name@version>')
    .description('remove one installed plugin version (the catalog keeps its history and marks it MISSING)')
    .action(async (nameAtVersion: string) => {
      const removed = await uninstallPlugin(nameAtVersion, installDir());
      process.stdout.write(`uninstalled ${removed.name}@${removed.version}; ${RELOAD_HINT}\n`);
    });

  plugins
    .command('installed')
    .description('list the plugin versions installed with `plugins install`, and whether their files are still the ones installed')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      const list = await listInstalledPlugins(installDir());
      if (options.json) return printJson(list);
      printTable(
        ['package', 'version', 'intact', 'code hash', 'from'],
        list.map((p) => [p.name, p.version, p.intact ? 'yes' : 'CHANGED', p.codeHash.slice(0, 12), p.resolved ?? p.spec]),
      );
    });
}
