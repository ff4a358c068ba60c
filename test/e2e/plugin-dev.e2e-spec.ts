import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, graphql, REPO_ROOT } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { pollUntil } from '../support/service-process';

/** `toolgate dev <dir>`: the author's package served on loopback, reloaded into fresh workers on every edit, descriptor edits taken as they are. */
describe('toolgate dev', () => {
  let work: string;
  let child: ChildProcess;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('serves the package on 127.0.0.1 and follows edits of its code and descriptor without holding the version', async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-dev-e2e-'));
    const dir = writePlugin(work, {
      folder: 'hello',
      packageJson: pluginPackage('@fixtures/hello', '0.1.0'),
      entry: `exports.tools = [{ ...${toolSource('say', 'Says the text back, first draft. Use it to test echoes; not for real work.')}, run: async (args) => ({ text: 'draft: ' + args.text }) }];`,
    });
    child = spawn(process.execPath, [join(REPO_ROOT, 'apps', 'gateway', 'bin', 'toolgate.js'), 'dev', dir, '--port', '0'], {
      cwd: work,
      env: { ...process.env, ...BM25_ONLY, LOG_LEVEL: 'info', HOST: '0.0.0.0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const url = await pollUntil(
      'toolgate dev to listen',
      () => {
        const line = output.split('\n').find((l) => l.includes('Toolgate listening'));
        return line && output.includes('toolgate dev: serving') ? (JSON.parse(line) as { url: string }).url : '';
      },
      (found) => found !== '',
      60_000,
    );
    // Loopback whatever HOST says.
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const say = async () =>
      (
        await graphql<{ executePlan: { steps: { output: { text: string } | null }[] } }>(url, 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { steps { output } } }', {
          variables: { plan: { steps: [{ id: 's1', tool: 'hello/say', arguments: { text: 'hi' } }] } },
        })
      ).data?.executePlan.steps[0]?.output?.text;
    expect(await say()).toBe('draft: hi');

    const entry = join(dir, 'index.js');
    writeFileSync(entry, readFileSync(entry, 'utf8').replace('first draft', 'second draft').replace("'draft: '", "'edited: '"));
    expect(await pollUntil('the edit to serve', say, (text) => text === 'edited: hi', 30_000)).toBe('edited: hi');
    const tool = await graphql<{ tool: { description: string; versions: { state: string; pendingDescriptorHash: string | null }[] } }>(
      url,
      '{ tool(id: "hello/say@0.1.0") { description versions { state pendingDescriptorHash } } }',
    );
    expect(tool.errors).toBeUndefined();
    expect(tool.data?.tool.description).toContain('second draft');
    expect(tool.data?.tool.versions[0]).toEqual({ state: 'ACTIVE', pendingDescriptorHash: null });
  }, 120_000);
});
