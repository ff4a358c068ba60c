import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway-process';
import { freePort } from './ports';
import { startServiceProcess } from './service-process';

export interface LocalRegistry {
  url: string;
  /** An npm userconfig that signs in to this registry: pass it as `--userconfig` to publish. */
  userconfig: string;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * A real npm registry (Verdaccio, a devDependency) on 127.0.0.1 with its storage under `work`, no
 * uplinks (a package it does not hold is a 404, never fetched from npmjs.org), anyone may read, a
 * signed-in user may publish; the user is created over npm's own adduser API.
 */
export async function startVerdaccio(work: string): Promise<LocalRegistry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  mkdirSync(join(work, 'storage'), { recursive: true });
  const config = join(work, 'verdaccio.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(work, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(work, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'log: { type: stdout, format: pretty, level: warn }',
      `listen: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const service = await startServiceProcess(
    'Verdaccio',
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', config, '--listen', `127.0.0.1:${port}`],
    `${url}/-/ping`,
    'npm ci installs verdaccio',
  );
  const signup = await fetch(`${url}/-/user/org.couchdb.user:author`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'author', password: 'author-password-1' }),
  });
  const { token } = (await signup.json()) as { token?: string };
  if (!signup.ok || !token) throw new Error(`Verdaccio refused the test user (${signup.status}):\n${service.logs()}`);
  const userconfig = join(work, 'npmrc');
  // Only the sign-in: everything else still comes from the default registry, as on an author's machine.
  writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { url, userconfig, ...service };
}

/** `npm publish` of the package in `dir` to the registry; throws with npm's output when it refuses. */
export function publish(dir: string, registry: LocalRegistry): void {
  const result = spawnSync('npm', ['publish', '--registry', registry.url, '--userconfig', registry.userconfig, '--ignore-scripts', '--no-audit'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`npm publish in ${dir} failed:\n${result.stdout}\n${result.stderr}`);
}
