import { isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { scaffoldPlugin } from '../plugin.scaffold';

/** A path as the user would type it here: relative below the current folder, absolute elsewhere. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

export function registerPluginNewCommand(plugins: Command): void {
  plugins
    .command('new <name>')
    .description('write a new plugin package (npm name, e.g. @acme/weather): a first tool, its spec, build and test scripts')
    .option('--dir <folder>', 'the folder to create the package in', '.')
    .option('--sdk <spec>', 'the @toolgate/sdk dependency (default: the sdk beside this CLI, as a file: path)')
    .action((name: string, options: { dir: string; sdk?: string }) => {
      const made = scaffoldPlugin(name, { parent: options.dir, ...(options.sdk ? { sdk: options.sdk } : {}) });
      const where = shown(made.dir);
      process.stdout.write(
        [
          `wrote ${made.packageName} in ${where}: ${made.files.join(', ')}`,
          '',
          'next:',
          `  cd ${where} && npm install && npm run build && npm test`,
          `  npx toolgate plugins validate ${where}`,
          `  npm publish, then on the gateway: npx toolgate plugins install ${made.packageName}@0.1.0`,
          `  (or without publishing: TOOLGATE_PLUGIN_DIRS=${shown(resolve(options.dir))}:plugins npx toolgate tools show ${made.toolId})`,
          '',
        ].join('\n'),
      );
    });
}
