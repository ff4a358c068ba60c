import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ErrorCode, type ErrorDetail, type ToolDescriptor, ToolgateError } from '@toolgate/sdk';
import { BUILT_SDK_ENTRY, PERMISSION_FLAG, pluginEnv, pluginLoadPaths, provideHostSdk } from '@toolgate/sdk/sandbox';

export interface ImportLimits {
  /** How long importing the entry and validating its tools may take before the process is killed. */
  timeoutMs: number;
  /** Old-generation heap of the import process. */
  heapMb: number;
  /** Largest tool list (JSON bytes) the process may hand back. */
  maxBytes: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = { timeoutMs: 10_000, heapMb: 256, maxBytes: 8 * 1024 * 1024 };

/** What the import process found: each export's descriptor (data, no code) and every problem with it, or why importing failed. */
export type ImportOutcome =
  /** `loaded`: the module files the import process had loaded when it answered (what the import cache fingerprints). */
  { kind: 'tools'; tools: ToolDescriptor[]; issues: ErrorDetail[]; loaded?: string[] } | { kind: 'threw'; message: string } | { kind: 'none'; count: number; why: string };

/*
 * The import process's code, run as source text (`node -e`, like the executor's workers), so it is
 * self-contained: it may use `require`, never this module's imports. Its one answer goes to fd 3.
 */
function pluginImportMain(): void {
  const { entry, sdk, maxBytes, maxTools } = JSON.parse(process.argv[1] as string) as { entry: string; sdk: string; maxBytes: number; maxTools: number };
  const { validateManifest, toDescriptor } = require(sdk) as {
    validateManifest(manifest: unknown, path: string): { path: string; message: string }[];
    toDescriptor(manifest: unknown): unknown;
  };
  const answer = new (require('node:net') as typeof import('node:net')).Socket({ fd: 3, readable: false, writable: true });
  const post = (message: unknown) => answer.end(JSON.stringify(message), () => process.exit(0));
  let exported: unknown;
  try {
    const mod = require(entry) as { tools?: unknown; default?: unknown };
    exported = mod.tools ?? mod.default;
  } catch (error) {
    post({ kind: 'threw', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  if (!Array.isArray(exported) || exported.length === 0) {
    post({ kind: 'none', count: 0, why: 'the entry must export `tools`, a non-empty array of defineTool(...) results' });
    return;
  }
  if (exported.length > maxTools) {
    post({ kind: 'none', count: exported.length, why: `at most ${maxTools} tools per package; split it into several packages` });
    return;
  }
  const issues = exported.flatMap((manifest, i) => validateManifest(manifest, `/tools/${i}`));
  const tools = issues.length === 0 ? exported.map((manifest) => toDescriptor(manifest)) : [];
  const bytes = Buffer.byteLength(JSON.stringify(tools), 'utf8');
  if (bytes > maxBytes) {
    post({ kind: 'none', count: exported.length, why: `the tool manifests take ${bytes} bytes, over the limit of ${maxBytes}` });
    return;
  }
  post({ kind: 'tools', tools, issues, loaded: Object.keys(require.cache) });
}

/** Room in the answer beyond the manifests' cap: the list of files the import loaded. */
const ANSWER_SLACK_BYTES = 1024 * 1024;

const IMPORT_SOURCE = `${String(provideHostSdk)}\nprovideHostSdk(${JSON.stringify(BUILT_SDK_ENTRY)});\n${String(pluginImportMain)}\npluginImportMain();\n`;

/**
 * Imports a plugin's entry and validates its tools in a process of its own, bounded in time, heap and
 * answer size, under the same permission model as the plugin's workers (reads only what loading needs,
 * no writes, no processes, only the variables the package declares): a plugin that loops, explodes,
 * snoops or ships enormous manifests at import costs that process, never the server's event loop. A
 * fresh process has a fresh module cache, so a reload sees the files as they are.
 */
export function importPluginTools(
  dir: string,
  entry: string,
  options: { maxTools: number; env: readonly string[]; addons: boolean },
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
): Promise<ImportOutcome> {
  const child = spawn(
    process.execPath,
    [
      PERMISSION_FLAG,
      '--disable-warning=ExperimentalWarning',
      ...pluginLoadPaths(dir).map((path) => `--allow-fs-read=${path}`),
      ...(options.addons ? ['--allow-addons'] : []),
      `--max-old-space-size=${limits.heapMb}`,
      '-e',
      IMPORT_SOURCE,
      JSON.stringify({ entry, sdk: BUILT_SDK_ENTRY, maxBytes: limits.maxBytes, maxTools: options.maxTools }),
    ],
    { env: pluginEnv(options.env), stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const [, , stderr, answer] = child.stdio as unknown as [null, null, Readable, Readable];
  return new Promise((settle, reject) => {
    const invalid = (message: string, detail: string) => new ToolgateError(ErrorCode.PLUGIN_INVALID, message, [{ path: '/toolgate/tools', message: detail }]);
    let done = false;
    let stderrTail = '';
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: ImportOutcome | ToolgateError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (outcome instanceof ToolgateError) reject(outcome);
      else settle(outcome);
    };
    const timer = setTimeout(() => finish(invalid(`importing ${entry} did not finish within ${limits.timeoutMs} ms`, 'the entry module must load quickly')), limits.timeoutMs);
    stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    answer.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // The answer is capped in the process; this bounds an answer the plugin forged itself.
      if (received > limits.maxBytes + ANSWER_SLACK_BYTES) finish(invalid(`importing ${entry} answered more than ${limits.maxBytes} bytes`, 'the tool manifests are too large'));
      else chunks.push(chunk);
    });
    child.once('error', (error) => finish({ kind: 'threw', message: error.message }));
    // `close`, not `exit`: the process can exit before its answer has been read from the pipe (a CI run lost an answer that way).
    child.once('close', (code, signal) => {
      if (done) return;
      if (chunks.length > 0) {
        try {
          finish(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ImportOutcome);
          return;
        } catch {
          finish(invalid(`importing ${entry} gave an unreadable answer`, 'the entry module wrote to the host channel'));
          return;
        }
      }
      if (/heap out of memory|Reached heap limit|allocation failed/i.test(stderrTail))
        finish(invalid(`importing ${entry} exhausted its ${limits.heapMb} MB heap`, 'the entry module used too much memory at import'));
      else finish({ kind: 'threw', message: lastError(stderrTail) ?? `the import process exited (${signal ?? `code ${code}`})` });
    });
  });
}

/** The thrown error's message line from Node's uncaught-exception report. */
function lastError(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((line) => line.trim());
  return lines.find((line) => /^[A-Za-z]*Error\b.*:/.test(line))?.slice(0, 500);
}
