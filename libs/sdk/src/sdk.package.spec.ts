import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_VERSION } from './index';

const SDK_ROOT = join(__dirname, '..');
const packageJson = JSON.parse(readFileSync(join(SDK_ROOT, 'package.json'), 'utf8')) as { version: string; engines?: { node?: string }; license?: string };

describe('the @toolgate/sdk package', () => {
  it('reports the version its package.json publishes, and the changelog describes it', () => {
    expect(SDK_VERSION).toBe(packageJson.version);
    expect(readFileSync(join(SDK_ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## ${packageJson.version}`);
  });

  it('publishes the built code with README, LICENSE and changelog, and no build info or maps to unshipped sources', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: SDK_ROOT, encoding: 'utf8' })) as { files: { path: string }[] }[];
    const files = (packed?.files ?? []).map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js']));
    expect(files.filter((path) => path.endsWith('.tsbuildinfo') || path.endsWith('.map') || path.includes('.spec.') || path.startsWith('src/'))).toEqual([]);
    expect(packageJson.engines?.node).toBeDefined();
    expect(packageJson.license).toBe('Apache-2.0');
  });
});
