import type { RunEvent } from '@toolgate/sdk';
import type { Command } from 'commander';
import { imageOption, keyOption, readTaskImages, withCore } from '../cli.options';
import { ms, printRun } from '../cli.output';

interface RunFlags {
  image?: string[];
  key?: string;
  json?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('plan a task and run it, showing each step on stderr; exits non-zero unless the run SUCCEEDED')
    .argument('<task>', 'what you want done, in words')
    .addOption(imageOption())
    .addOption(keyOption())
    .option('--json', 'print the final run as JSON only (progress still goes to stderr)')
    .action(async (task: string, options: RunFlags) => {
      await withCore(options.key, async (core) => {
        const images = await readTaskImages(options.image ?? []);
        const progress = core.runEvents.all().subscribe(({ event }) => {
          const line = progressLine(event);
          if (line) process.stderr.write(`${line}\n`);
        });
        const interrupt = new AbortController();
        const onSigint = () => interrupt.abort(new Error('interrupted (SIGINT)'));
        process.once('SIGINT', onSigint);
        try {
          const run = await core.runTask.execute({ text: task, images }, core.principal, { signal: interrupt.signal });
          printRun(run, options.json);
          if (run.status === 'PENDING_APPROVAL') process.stderr.write('the run waits for an approval, which needs a server (toolgate serve): it is cancelled as the CLI exits\n');
          if (run.status !== 'SUCCEEDED') process.exitCode = 1;
        } finally {
          process.removeListener('SIGINT', onSigint);
          progress.unsubscribe();
        }
      });
    });
}

/** One line per event for a person watching the run (stderr); null for events that add nothing to read. */
export function progressLine(event: RunEvent): string | null {
  switch (event.type) {
    case 'RUN_STARTED':
      return `run ${event.run.id} started: ${event.run.steps.length} step(s)`;
    case 'STEP_STARTED':
      return `${event.stepId} ${event.tool} RUNNING`;
    case 'STEP_PROGRESS':
      return `${event.stepId} ${event.tool} ${event.progress}${event.total !== undefined ? `/${event.total}` : ''}${event.message ? ` ${event.message}` : ''}`;
    case 'ATTEMPT':
      return event.outcome === 'FAILED'
        ? `${event.stepId} ${event.tool} attempt ${event.attempt} FAILED ${ms(event.durationMs)}${event.error ? ` ${event.error.code}: ${event.error.message}` : ''}`
        : null;
    case 'STEP_FINISHED': {
      const { step } = event;
      const why = step.error ? ` ${step.error.code}: ${step.error.message}` : step.reason ? ` (${step.reason})` : '';
      return `${step.id} ${step.tool} ${step.status} ${ms(step.durationMs)}${why}`;
    }
    case 'APPROVAL_REQUESTED':
      return `${event.stepId} ${event.tool} PENDING_APPROVAL (${event.reason})`;
    case 'APPROVAL_DECIDED':
      return `${event.stepId} ${event.approved ? 'approved' : 'rejected'} by ${event.by.subject}${event.comment ? `: ${event.comment}` : ''}`;
    case 'REPLANNED':
      return `re-planned (${event.attempt}): ${event.reason}`;
    case 'RUN_FINISHED':
      return `run ${event.run.id} ${event.run.status}${event.run.reason ? ` (${event.run.reason})` : ''}`;
  }
}
