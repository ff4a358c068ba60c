import type { Command } from 'commander';
import { keyOption, withCore } from '../cli.options';
import { printJson } from '../cli.output';

export function registerExamplesImportCommand(examples: Command): void {
  examples
    .command('import')
    .description('import labelled queries as usage examples (admin); nothing is stored if any line is bad')
    .argument('<file>', 'JSON Lines: {"query", "tool": "namespace/name"} or the eval format {qid, query, gold[], split} per line')
    .option('--split <name>', 'only the lines of this split (eval format)')
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (file: string, options: { split?: string; key?: string; json?: boolean }) => {
      await withCore(options.key, async (core) => {
        core.access.assertAdmin(core.principal, 'importing usage examples');
        const result = await core.usage.importFile(file, { split: options.split });
        if (options.json) return printJson(result);
        const dropped = result.dropped > 0 ? `, ${result.dropped} oldest of the most-used tools dropped to keep at most ${result.bound} (TOOLGATE_USAGE_EXAMPLES_MAX)` : '';
        process.stdout.write(`imported ${result.imported} usage examples for ${result.tools} tools (${result.duplicates} duplicates skipped${dropped})\n`);
      });
    });
}
