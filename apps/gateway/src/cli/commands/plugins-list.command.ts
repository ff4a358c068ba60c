import type { Command } from 'commander';
import { withCatalog } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

export function registerPluginsListCommand(plugins: Command): void {
  plugins
    .command('list')
    .description('list plugin packages and their load status')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      await withCatalog(undefined, async ({ catalog }) => {
        const list = catalog.listPlugins();
        if (options.json) return printJson(list);
        printTable(
          ['package', 'version', 'status', 'tools', 'code', 'error'],
          list.map((p) => [
            p.packageName,
            p.version,
            p.status,
            p.toolCount,
            p.code ? p.code.hash.slice(0, 12) : '',
            truncate(p.error ? `${p.error.message} ${p.error.details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : '', 70),
          ]),
        );
      });
    });
}
