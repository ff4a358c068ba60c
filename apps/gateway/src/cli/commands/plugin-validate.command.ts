import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadPlugin } from '@toolgate/registry';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { printJson } from '../cli.output';

export interface ValidationReport {
  dir: string;
  package: string | null;
  toolIds: string[];
  /** Files `npm publish` would ship. */
  published: string[];
  issues: ErrorDetail[];
}

/** What would ship: npm's own answer (`npm pack --dry-run`), so `files`, `.npmignore` and defaults count exactly as they will. */
function publishedFiles(dir: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(out) as { files: { path: string }[] }[];
  return (packed?.files ?? []).map((file) => file.path);
}

/**
 * Every check a gateway makes when it loads the package (package.json, the sdk range, the import in a
 * sandboxed process, every manifest, schema and example), and what publishing needs on top: the
 * tools entry is among the files npm would ship, and the sdk is not a path that only resolves here.
 */
export async function validatePlugin(dir: string): Promise<ValidationReport> {
  let packageJson: Record<string, unknown>;
  try {
    packageJson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${dir} has no readable package.json: ${(error as Error).message}`, [{ path: '[dir]', message: 'not a package folder' }]);
  }
  const issues: ErrorDetail[] = [];
  const registry = loadConfig().registry;
  const loaded = await loadPlugin({ dir, packageJson }, undefined, registry.pluginImport);
  if (!loaded.ok) issues.push({ path: '', message: loaded.error.message }, ...loaded.error.details);
  const dependencies = (packageJson.dependencies ?? {}) as Record<string, unknown>;
  const sdk = dependencies['@toolgate/sdk'];
  if (typeof sdk === 'string' && /^(file|link|workspace):/.test(sdk)) {
    issues.push({
      path: '/dependencies/@toolgate/sdk',
      message: `"${sdk}" resolves only on this machine; make @toolgate/sdk a peerDependency (the gateway provides it) and keep the path in devDependencies`,
    });
  }
  const published = publishedFiles(dir);
  const toolgate = packageJson.toolgate as { tools?: unknown } | undefined;
  if (typeof toolgate?.tools === 'string') {
    const entry = relative(dir, resolve(dir, toolgate.tools));
    if (!published.includes(entry)) issues.push({ path: '/toolgate/tools', message: `${entry} would not be published (build first, and keep it in "files")` });
  }
  return {
    dir,
    package: typeof packageJson.name === 'string' ? `${packageJson.name}@${String(packageJson.version)}` : null,
    toolIds: loaded.ok ? loaded.tools.map((tool) => `${loaded.namespace}/${tool.name}`) : [],
    published,
    issues,
  };
}

export function registerPluginValidateCommand(plugins: Command): void {
  plugins
    .command('validate [dir]')
    .description('run every check a gateway makes on load (in a sandboxed process, like the host), and what publishing needs; exits non-zero on any issue')
    .option('--json', 'print JSON only')
    .action(async (dir: string | undefined, options: { json?: boolean }) => {
      const report = await validatePlugin(resolve(dir ?? '.'));
      if (report.issues.length > 0) process.exitCode = 1;
      if (options.json) return printJson(report);
      if (report.issues.length === 0) {
        process.stdout.write(`${report.package} is valid: ${report.toolIds.join(', ')}; publishes ${report.published.length} files\n`);
        return;
      }
      process.stdout.write(`${report.package ?? report.dir} has ${report.issues.length} issue(s):\n${report.issues.map((issue) => `  ${issue.path || '-'}: ${issue.message}`).join('\n')}\n`);
    });
}
