import { ErrorCode, RUN_STATUSES, type RunStatus, ToolgateError } from '@toolgate/sdk';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { keyOption, positiveInt, withCore } from '../cli.options';
import { printJson, printRun, printTable } from '../cli.output';

function runStatus(value: string): RunStatus {
  const upper = value.toUpperCase();
  if (!(RUN_STATUSES as readonly string[]).includes(upper)) throw new InvalidArgumentError(`must be one of ${RUN_STATUSES.join(', ')}`);
  return upper as RunStatus;
}

/** `toolgate runs list|show`: the audit of the caller's tenant, as the caller may see it (the catalog database, no server needed). */
export function registerRunsCommands(program: Command): void {
  const runs = program.command('runs').description("recorded runs of the caller's tenant");
  runs
    .command('list')
    .description('runs newest first, with their status, steps and owner')
    .addOption(new Option('--status <status>', `only runs in this status (${RUN_STATUSES.join(', ')})`).argParser(runStatus))
    .option('--subject <subject>', 'only runs of this subject')
    .option('--limit <n>', 'at most this many (at most 500)', positiveInt, 20)
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (options: { status?: RunStatus; subject?: string; limit: number; key?: string; json?: boolean }) => {
      await withCore(options.key, async (core) => {
        const list = await core.listRuns.execute(core.principal, { status: options.status, subject: options.subject, limit: Math.min(options.limit, 500) });
        if (options.json) return printJson(list);
        if (list.length === 0) return void process.stdout.write('no runs\n');
        printTable(
          ['run', 'status', 'started', 'steps', 'owner', 'task'],
          list.map((run) => [run.id, run.status, run.startedAt, run.steps.length, `${run.owner.tenant}/${run.owner.subject}`, (run.task ?? '').slice(0, 50)]),
        );
      });
    });
  runs
    .command('show <runId>')
    .description("one run's steps: tool, status, attempts, time, output or error, and its trace id")
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (runId: string, options: { key?: string; json?: boolean }) => {
      await withCore(options.key, async (core) => {
        const run = await core.findRun.execute(runId, core.principal);
        // Another tenant's run reads exactly like one that does not exist.
        if (!run) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId}`, [{ path: '<runId>', message: 'no such run' }]);
        printRun(run, options.json);
      });
    });
}
