import type { Command } from 'commander';
import { keyOption, withCore } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

export function registerExamplesListCommand(examples: Command): void {
  examples
    .command('list')
    .description('list stored usage examples (admin: they are what callers asked)')
    .option('--tool <id>', 'only this tool (namespace/name)')
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (options: { tool?: string; key?: string; json?: boolean }) => {
      await withCore(options.key, async (core) => {
        core.access.assertAdmin(core.principal, 'listing usage examples');
        const list = await core.usage.list({ toolId: options.tool });
        if (options.json) return printJson(list);
        if (list.length === 0) return void process.stdout.write('no usage examples\n');
        printTable(
          ['tool', 'source', 'added', 'query'],
          list.map((e) => [e.toolId, e.source, e.createdAt.toISOString(), truncate(e.query, 70)]),
        );
      });
    });
}
