import { inspect } from 'node:util';
import { ToolgateError } from '@toolgate/sdk';
import { buildCli } from './cli/cli.program';

/** `toolgate <command>`: see `toolgate --help`. */
buildCli()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    // A known failure (bad config, missing model, ...) is one line; a bug, or LOG_LEVEL=debug, gets the stack and causes.
    const debugging = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';
    const known = ToolgateError.is(error);
    const lines = [known ? error.describe() : null, known && !debugging ? null : inspect(error, { depth: 6 })].filter((line) => line !== null);
    process.stderr.write(`toolgate: ${lines.join('\n')}\n`);
    // Exit now: a half-built app may hold handles open (a database pool, plugin workers) that nothing will close.
    process.exit(1);
  });
