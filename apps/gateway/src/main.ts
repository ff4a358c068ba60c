import { ToolgateError } from '@toolgate/sdk';
import { buildCli } from './cli/cli';

/** `toolgate <command>`: see `toolgate --help`. */
buildCli()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`toolgate: ${ToolgateError.is(error) ? error.describe() : ((error as Error).stack ?? String(error))}\n`);
    process.exitCode = 1;
  });
