import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');
const BIN = join(REPO_ROOT, 'apps', 'gateway', 'bin', 'toolgate.js');

export interface RunningGateway {
  url: string;
  startupMs: number;
  logs(): string;
  stop(): Promise<void>;
}

/** The environment a test process gets: nothing of the developer's Toolgate settings leaks in. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TOOLGATE_|DATABASE_URL|ELASTICSEARCH_URL|PORT|HOST|OTEL_|GRAPHQL_)/.test(k) || k === 'TOOLGATE_TEST_DATABASE_URL'));
  return { ...base, LOG_LEVEL: 'info', ...env };
}

/** Starts the built server (`toolgate serve`) as a child process on a free port and waits until it listens. */
export function startGateway(env: Record<string, string>, cwd = REPO_ROOT): Promise<RunningGateway> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], { cwd, env: cleanEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('Toolgate listening')) continue;
        const record = JSON.parse(line) as { url: string; startupMs: number };
        clearTimeout(timer);
        resolve({
          url: record.url,
          startupMs: record.startupMs,
          logs: () => output,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
        return;
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with code ${code} before listening:\n${output}`));
    });
  });
}

/** Runs `toolgate <args>` to completion. */
export function runCli(args: string[], env: Record<string, string>, cwd = REPO_ROOT) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `toolgate <args>` without blocking this process, for when the test itself serves the CLI (e.g. a scripted LLM). */
export function runCliAsync(args: string[], env: Record<string, string>, cwd = REPO_ROOT): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export interface GraphqlResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; details?: { path: string; message: string }[]; [k: string]: unknown } }[];
}

export async function graphql<T = Record<string, unknown>>(url: string, query: string, options: { key?: string; variables?: Record<string, unknown> } = {}): Promise<GraphqlResponse<T>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) },
    body: JSON.stringify({ query, variables: options.variables }),
  });
  return (await response.json()) as GraphqlResponse<T>;
}

export const codesOf = <T>(response: GraphqlResponse<T>): (string | undefined)[] => (response.errors ?? []).map((e) => e.extensions?.code);
