import { randomUUID } from 'node:crypto';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Command } from 'commander';
import { keyOption, withCore } from '../cli.options';
import { printRun } from '../cli.output';

function parseArguments(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `--args is not JSON: ${(error as Error).message}`, [{ path: '--args', message: 'not JSON' }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, "--args must be a JSON object of the tool's arguments", [{ path: '--args', message: 'not an object' }]);
  }
  return parsed as Record<string, unknown>;
}

export function registerToolsCallCommand(tools: Command): void {
  tools
    .command('call <tool>')
    .description('run one tool with the arguments given (no planning), under the same checks as any run; exits non-zero unless it SUCCEEDED')
    .option('--args <json>', 'the arguments, a JSON object', '{}')
    .addOption(keyOption())
    .option('--json', 'print the run as JSON only')
    .action(async (tool: string, options: { args: string; key?: string; json?: boolean }) => {
      const args = parseArguments(options.args);
      await withCore(options.key, async (core) => {
        const run = await core.executePlan.execute(
          { id: randomUUID(), decision: 'USE_TOOLS', steps: [{ id: 'call', tool, arguments: args, dependsOn: [], reason: 'toolgate tools call' }] },
          core.principal,
        );
        printRun(run, options.json);
        if (run.status !== 'SUCCEEDED') process.exitCode = 1;
      });
    });
}
