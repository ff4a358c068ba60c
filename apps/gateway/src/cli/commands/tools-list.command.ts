import type { Command } from 'commander';
import { keyOption, withCatalog } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

export function registerToolsListCommand(tools: Command): void {
  tools
    .command('list')
    .description('list the tools the caller may discover')
    .option('--namespace <ns>', 'only this namespace')
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (options: { namespace?: string; key?: string; json?: boolean }) => {
      await withCatalog(options.key, async ({ catalog, principal }) => {
        const list = catalog.listTools(principal, { namespace: options.namespace });
        if (options.json)
          return printJson(
            list.map((t) => ({
              id: t.id,
              activeVersion: t.active?.version ?? null,
              versions: t.versions.map((v) => ({ version: v.version, state: v.state })),
              title: t.active?.descriptor.title,
              risk: t.active?.risk,
            })),
          );
        printTable(
          ['id', 'version', 'risk', 'title'],
          list.map((t) => [t.id, t.active?.version ?? '-', t.active?.risk ?? '-', truncate(t.active?.descriptor.title ?? '', 50)]),
        );
      });
    });
}
