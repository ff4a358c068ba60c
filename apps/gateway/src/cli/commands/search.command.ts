import type { Command } from 'commander';
import { keyOption, positiveInt, withCore } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

export function registerSearchCommand(program: Command): void {
  program
    .command('search')
    .description('find the tools that best fit a task')
    .argument('<query>', 'what you want to do, in words')
    .option('-k, --k <n>', 'how many results', positiveInt)
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (query: string, options: { k?: number; key?: string; json?: boolean }) => {
      await withCore(options.key, async (core) => {
        const results = await core.search.execute({ query, k: options.k }, core.principal);
        if (options.json) {
          return printJson(
            results.map(({ tool, hit }) => ({
              id: tool.id,
              version: hit.version,
              score: hit.score,
              title: tool.active?.descriptor.title,
              lexical: hit.lexical ?? null,
              semantic: hit.semantic ?? null,
            })),
          );
        }
        if (results.length === 0) return void process.stdout.write('no matching tools\n');
        printTable(
          ['#', 'id', 'bm25', 'vector', 'title', 'matched'],
          results.map(({ tool, hit }) => [
            hit.rank,
            tool.id,
            hit.lexical ? `#${hit.lexical.rank}` : '-',
            hit.semantic ? `#${hit.semantic.rank} ${hit.semantic.score.toFixed(2)}` : '-',
            truncate(tool.active?.descriptor.title ?? '', 36),
            (hit.lexical?.matchedTerms ?? []).join(' '),
          ]),
        );
      });
    });
}
