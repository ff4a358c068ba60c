import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, REPO_ROOT } from '../support/gateway-process';
import { AUTHOR_LOOP, README_BLOCKS, shellLines } from '../support/readme';
import { type LocalRegistry, startVerdaccio } from '../support/verdaccio';

/**
 * A new author's loop exactly as the README writes it (its "author loop" block, line by line, from
 * the repository root): scaffold, build and test, validate, publish to a real registry (Verdaccio on
 * 127.0.0.1 stands for the author's, at the port the README names), install from it, find the tool
 * by search and run it.
 */
describe('the README plugin author loop', () => {
  let work: string;
  let registry: LocalRegistry;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-author-'));
    registry = await startVerdaccio(join(work, 'registry'));
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('goes from `plugins new` to a published, installed, searchable, running tool', () => {
    const block = README_BLOCKS.find((b) => b.lang === 'bash' && b.body.startsWith(AUTHOR_LOOP));
    expect(block).toBeDefined();
    const lines = shellLines(block?.body ?? '');
    expect(lines.some((line) => line.includes('npm publish'))).toBe(true);
    rmSync('/tmp/my-plugins', { recursive: true, force: true });
    const env = {
      ...process.env,
      ...BM25_ONLY,
      TOOLGATE_DATA_DIR: join(work, 'data'),
      TOOLGATE_PLUGIN_DIRS: join(work, 'no-plugins'),
      // The author signed in once (`npm adduser`): their npm config holds the token.
      npm_config_userconfig: registry.userconfig,
      LOG_LEVEL: 'warn',
    };
    const outputs: string[] = [];
    for (const line of lines) {
      const command = line.replaceAll('http://127.0.0.1:4873', registry.url);
      const result = spawnSync('bash', ['-o', 'pipefail', '-c', command], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 180_000 });
      if (result.status !== 0) throw new Error(`${line}\n  exit ${result.status}: ${(result.stderr || result.stdout).trim().slice(0, 1200)}`);
      outputs.push(result.stdout);
    }
    const [, tested, validated, , installed, searched, called] = outputs;
    // Both spec files ran, host mode included (a worker process on the published sdk, outside this repository).
    expect(tested).toMatch(/# pass 5\b/);
    expect(tested).toContain('gets only arguments its inputSchema allows');
    expect(tested).toMatch(/# fail 0\b/);
    expect(validated).toContain('@acme/greeter@0.1.0 is valid: greeter/greet');
    expect(installed).toContain('installed @acme/greeter@0.1.0');
    expect(searched).toContain('greeter/greet');
    expect(called).toContain('SUCCEEDED');
    expect(called).toContain('Hallo, Ada!');
  }, 600_000);
});
