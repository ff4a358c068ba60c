#!/usr/bin/env node
/**
 * The naming rule, checked by `npm run lint`: a source file under libs/, apps/ or plugins/ is
 * `<name>.<kind>.ts` in its feature folder (or `index.ts`), and a spec is that name plus
 * `.spec.ts`, `.int-spec.ts` or `.e2e-spec.ts`, so that what a file is shows in its name.
 * Lists every offender and exits 1. Plain Node, no dependencies.
 */
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { basename, join } = require('node:path');

const root = join(__dirname, '..');
const SOURCE = /^[a-z0-9-]+\.[a-z0-9-]+\.tsx?$/;
const SPEC = /^[a-z0-9-]+\.[a-z0-9-]+\.(spec|int-spec|e2e-spec)\.ts$/;

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /^(libs|apps|plugins)\//.test(file) && !file.includes('/dist/') && !file.includes('/node_modules/') && existsSync(join(root, file)));

const offenders = tracked.filter((file) => {
  const name = basename(file);
  return name !== 'index.ts' && !SOURCE.test(name) && !SPEC.test(name);
});

if (offenders.length > 0) {
  process.stderr.write(
    [
      `check-file-names: ${offenders.length} file(s) break the naming rule:`,
      ...offenders.map((file) => `  ${file}`),
      '',
      'Rule: sources are <name>.<kind>.ts (or index.ts; .tsx for React components), specs <name>.<kind>.spec.ts / .int-spec.ts / .e2e-spec.ts,',
      'with name and kind in lowercase kebab-case: e.g. catalog.service.ts, tool-index.port.ts,',
      'embedded.tool-index.ts, tool.errors.ts, currency.lexicon.ts, plan.runner.spec.ts.',
      '',
    ].join('\n'),
  );
  process.exit(1);
}
process.stdout.write(`check-file-names: ${tracked.length} files follow <name>.<kind>.ts\n`);
