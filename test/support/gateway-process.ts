import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout these helpers belong to, found upwards from here: the same from test/support and from a bench's compiled copy. */
function repoRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'apps', 'gateway', 'bin', 'toolgate.js'))) return dir;
  throw new Error(`no Toolgate checkout above ${from}`);
}

export const REPO_ROOT = repoRoot(__dirname);
const BIN = join(REPO_ROOT, 'apps', 'gateway', 'bin', 'toolgate.js');

export interface RunningGateway {
  url: string;
  startupMs: number;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * For servers and CLI runs whose test is about something other than semantic retrieval: BM25 only, no
 * model to load and no tool vectors to compute. Without it a test gets the zero-config default, the
 * local model (see the zero-config suite in gateway.e2e-spec.ts).
 */
export const BM25_ONLY = { TOOLGATE_EMBEDDER: 'none' } as const;

/**
 * The environment a test process gets: nothing of the developer's Toolgate settings leaks in, except
 * where the fetched model lives (TOOLGATE_MODEL_DIR, as scripts/test.sh fetched it).
 */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const kept = new Set(['TOOLGATE_TEST_DATABASE_URL', 'TOOLGATE_MODEL_DIR']);
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TOOLGATE_|DATABASE_URL|ELASTICSEARCH_URL|PORT|HOST|OTEL_|GRAPHQL_)/.test(k) || kept.has(k)));
  return { ...base, LOG_LEVEL: 'info', ...env };
}

/** Polls readiness: the server listens before the first index sync ends (embedding the tools takes seconds). */
async function untilReady(url: string, deadline: number, child: ChildProcess): Promise<void> {
  const ready = url.replace(/\/graphql$/, '/health/ready');
  while (child.exitCode === null && child.signalCode === null) {
    const status = await fetch(ready).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`not ready (${ready} answered ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('exited');
}

/**
 * Starts the built server (`toolgate serve`) as a child process on a free port and waits until it is
 * ready (listening, tools indexed), or with `until: 'listening'` only until it listens.
 */
export function startGateway(env: Record<string, string>, cwd = REPO_ROOT, { until = 'ready' }: { until?: 'ready' | 'listening' } = {}): Promise<RunningGateway> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], { cwd, env: cleanEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  const deadline = Date.now() + 60_000;
  let output = '';
  let listening = false;
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`gateway was not ready within 60 s:\n${output}`)), deadline - Date.now());
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (listening) return;
      const line = output.split('\n').find((l) => l.includes('Toolgate listening'));
      if (!line) return;
      listening = true;
      const record = JSON.parse(line) as { url: string; startupMs: number };
      (until === 'ready' ? untilReady(record.url, deadline, child) : Promise.resolve()).then(
        () => {
          clearTimeout(timer);
          resolve({ url: record.url, startupMs: record.startupMs, logs: () => output, stop });
        },
        (error: Error) => fail(new Error(`gateway listened but ${error.message}:\n${output}`)),
      );
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with code ${code} before it was ready:\n${output}`));
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

export interface RunningWorker {
  id: string;
  pid: number;
  logs(): string;
  /** `call accepted` log records of this worker (its LOG_LEVEL is debug). */
  accepted(): { callId: string; tool: string; attempt: number; time: number }[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the built `toolgate worker --id <id>` and waits until it serves (plugins loaded, connected to NATS, announced). */
export function startWorker(id: string, env: Record<string, string>, cwd = REPO_ROOT): Promise<RunningWorker> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'worker', '--id', id], { cwd, env: cleanEnv({ LOG_LEVEL: 'debug', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const kill = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill(signal);
    });
  const accepted = () =>
    output
      .split('\n')
      .filter((line) => line.includes('"msg":"call accepted"'))
      .map((line) => JSON.parse(line) as { callId: string; tool: string; attempt: number; time: number });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker ${id} was not serving within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('"msg":"tool worker serving"')) return;
      clearTimeout(timer);
      resolve({ id, pid: child.pid as number, logs: () => output, accepted, kill });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker ${id} exited with code ${code} before it served:\n${output}`));
    });
  });
}
