import { type ChildProcess, spawn } from 'node:child_process';

export interface ServiceProcess {
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts a real service program (Prometheus, Jaeger) for a test and waits until `readyUrl` answers
 * 2xx; a program that cannot start, exits or is not ready within 30 s fails with what it printed and
 * `hint` (how to install it).
 */
export async function startServiceProcess(name: string, bin: string, args: string[], readyUrl: string, hint: string): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`${name} could not start from ${bin} (${hint}): ${error.message}`)));
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(readyUrl).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not become ready at ${readyUrl}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    logs: () => output,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** Polls `probe` every 250 ms until it returns a value other than undefined, or fails after `timeoutMs` with `what`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Polls `probe` every 100 ms until `check` holds, returning that value; fails naming what was last seen. */
export async function pollUntil<T>(what: string, probe: () => Promise<T> | T, check: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await probe();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}
