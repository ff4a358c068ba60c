import { resolve } from 'node:path';
import { type ArgumentEvalResult, evaluateArgumentFilling, readArgumentTasks } from '@toolgate/planner/evaluation';
import { discoverPluginPackages, loadPlugins } from '@toolgate/registry';
import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { printJson, printTable, truncate } from '../cli.output';

export const DEFAULT_ARGUMENT_TASKS = 'test/fixtures/argument-filling/tasks.jsonl';

interface EvalArgumentsFlags {
  file: string;
  json?: boolean;
}

export function registerEvalArgumentsCommand(evaluation: Command): void {
  evaluation
    .command('arguments')
    .description('how exactly arguments are filled from task text by schema, and whether every missing one turns into CLARIFY, on a labelled tasks.jsonl')
    .option('--file <tasks.jsonl>', 'labelled tasks over the installed plugins', DEFAULT_ARGUMENT_TASKS)
    .option('--json', 'print one JSON object only')
    .action(evalArguments);
}

/** Input schemas of the installed plugins' tools by `namespace/name`, loaded the way the registry loads them (no database). */
async function pluginToolSchemas(pluginDirs: string[]): Promise<Map<string, JsonSchema>> {
  const schemas = new Map<string, JsonSchema>();
  for (const result of await loadPlugins(await discoverPluginPackages(pluginDirs))) {
    if (!result.ok) {
      process.stderr.write(`skipping plugin at ${result.dir}: ${result.error.message}\n`);
      continue;
    }
    for (const tool of result.tools) schemas.set(`${result.namespace}/${tool.name}`, tool.inputSchema);
  }
  return schemas;
}

export async function runArgumentEval(file: string, pluginDirs: string[]): Promise<ArgumentEvalResult> {
  const tasks = await readArgumentTasks(file);
  if (tasks.length === 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${file} holds no tasks`, [{ path: file, message: 'empty' }]);
  const schemas = await pluginToolSchemas(pluginDirs);
  return evaluateArgumentFilling(tasks, (tool) => schemas.get(tool));
}

function toJsonReport(result: ArgumentEvalResult): Record<string, unknown> {
  return {
    arguments_exact: result.argumentsExact,
    clarify_recall: result.clarifyRecall,
    false_clarify: result.falseClarify,
    ambiguous_recall: result.ambiguousRecall,
    tasks: result.tasks,
    expected_arguments: result.expectedArguments,
    clarify_tasks: result.clarifyTasks,
    complete_tasks: result.completeTasks,
    ambiguous_tasks: result.ambiguousTasks,
    extra_arguments: result.extraArguments,
    latency_ms: result.latencyMs,
    misses: result.misses,
  };
}

async function evalArguments(flags: EvalArgumentsFlags): Promise<void> {
  const { registry } = loadConfig();
  const result = await runArgumentEval(resolve(flags.file), registry.pluginDirs);
  if (flags.json) return printJson(toJsonReport(result));
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  printTable(
    ['metric', 'value', 'over'],
    [
      ['arguments exactly right', pct(result.argumentsExact), `${result.expectedArguments} expected arguments`],
      ['CLARIFY recall (missing required)', pct(result.clarifyRecall), `${result.clarifyTasks} tasks`],
      ['false CLARIFY (complete tasks)', pct(result.falseClarify), `${result.completeTasks} tasks`],
      ['ambiguous fields reported', pct(result.ambiguousRecall), `${result.ambiguousTasks} tasks`],
      ['arguments filled but not expected', result.extraArguments, `${result.tasks} tasks`],
      ['fill latency p50 / p95 (ms)', `${result.latencyMs.p50.toFixed(2)} / ${result.latencyMs.p95.toFixed(2)}`, `${result.tasks} tasks`],
    ],
  );
  if (result.misses.length > 0) {
    printTable(
      ['task', 'field', 'expected', 'got'],
      result.misses.map((m) => [m.id, m.path, truncate(JSON.stringify(m.expected) ?? '-', 40), truncate(JSON.stringify(m.got) ?? '-', 60)]),
    );
  }
}
