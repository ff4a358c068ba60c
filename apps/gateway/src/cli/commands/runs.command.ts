import { ErrorCode, RUN_STATUSES, type Run, type RunStatus, ToolgateError } from '@toolgate/sdk';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { keyOption, positiveInt, withCore } from '../cli.options';
import { printJson, printRun, printTable } from '../cli.output';
import { gatewayGraphql, urlOption } from '../gateway.client';

function runStatus(value: string): RunStatus {
  const upper = value.toUpperCase();
  if (!(RUN_STATUSES as readonly string[]).includes(upper)) throw new InvalidArgumentError(`must be one of ${RUN_STATUSES.join(', ')}`);
  return upper as RunStatus;
}

const RUN_FIELDS =
  'id status reason traceId planId task owner { tenant subject } replans startedAt finishedAt steps { id tool status attempts output error { code message path } reason dependsOn startedAt durationMs }';
const DECIDE = (mutation: 'approveStep' | 'rejectStep') =>
  `mutation($runId: ID!, $stepId: String!, $comment: String) { run: ${mutation}(runId: $runId, stepId: $stepId, comment: $comment) { ${RUN_FIELDS} } }`;
const CANCEL = `mutation($runId: ID!) { run: cancelRun(runId: $runId) { ${RUN_FIELDS} } }`;

/** GraphQL says null where the run contract leaves a field out: print the run as `runs show` would. */
const contractRun = (run: Run): Run => ({ ...run, steps: run.steps.map((step) => Object.fromEntries(Object.entries(step).filter(([, value]) => value !== null)) as typeof step) });

/**
 * `toolgate runs list|show` read the audit of the caller's tenant as the caller may see it (the catalog
 * database, no server needed); `approve|reject|cancel` act on a run, so they ask the running gateway
 * that holds it (`--url`), exactly as the GraphQL mutations do.
 */
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
  for (const [name, mutation, description] of [
    ['approve', 'approveStep', 'let a step waiting for approval run; prints the run when it finishes or waits again'],
    ['reject', 'rejectStep', 'refuse a step waiting for approval: it ends CANCELLED and its dependents SKIPPED'],
  ] as const) {
    runs
      .command(`${name} <runId> <stepId>`)
      .description(`${description} (on the running gateway)`)
      .option('--comment <text>', 'why, kept in the audit with the decision')
      .addOption(urlOption())
      .addOption(keyOption())
      .option('--json', 'print JSON only')
      .action(async (runId: string, stepId: string, options: { comment?: string; url: string; key?: string; json?: boolean }) => {
        const { run } = await gatewayGraphql<{ run: Run }>(options.url, options.key ?? process.env.TOOLGATE_API_KEY, DECIDE(mutation), { runId, stepId, comment: options.comment });
        printRun(contractRun(run), options.json);
      });
  }
  runs
    .command('cancel <runId>')
    .description('cancel a run in progress or waiting for approval: running calls are aborted, the rest end CANCELLED (on the running gateway)')
    .addOption(urlOption())
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (runId: string, options: { url: string; key?: string; json?: boolean }) => {
      const { run } = await gatewayGraphql<{ run: Run }>(options.url, options.key ?? process.env.TOOLGATE_API_KEY, CANCEL, { runId });
      printRun(contractRun(run), options.json);
    });
}
