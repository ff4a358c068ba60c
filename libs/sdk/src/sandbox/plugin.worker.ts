import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import type { ToolLogger, ToolManifest, ToolSpan } from '../manifest/manifest.types';
import { BUILT_SDK_ENTRY, PERMISSION_FLAG, pluginEnv, pluginLoadPaths } from './plugin-process.policy';
import { TOOL_WORKER_SOURCE } from './tool-worker.main';
import type { SerializedError, WorkerReply, WorkerRequest } from './tool-worker.protocol';

/*
 * One plugin worker process, as the gateway's pools and the testing kit's host mode both run it: the
 * same command line, permission profile, frames and limits, so a plugin tested in host mode meets
 * exactly the sandbox it will be served in.
 */

/** What starting and running a worker needs beyond its profile. */
export interface WorkerOptions {
  /** Old-generation heap of the process, in MB. */
  heapMb: number;
  /** How long a tool may go on after its abort before its process is killed. */
  killGraceMs: number;
  /** Largest result (JSON bytes) any call may return. */
  maxOutputBytes: number;
  /** Host globs for `net:fetch` tools; empty = no host restriction beyond the plugin's own. */
  netHosts: string[];
}

/** A gateway's defaults (TOOLGATE_WORKER_HEAP_MB, _KILL_GRACE_MS, _MAX_OUTPUT_BYTES, _NET_HOSTS take them), and host mode's. */
export const DEFAULT_WORKER_OPTIONS: Readonly<WorkerOptions> = Object.freeze({ heapMb: 256, killGraceMs: 100, maxOutputBytes: 8 * 1024 * 1024, netHosts: [] });

/** The code a version loaded: the workers that run it refuse other code. */
export interface WorkerCode {
  root: string;
  hash: string;
}

/** The permission profile of a tool's workers: from its scopes and what its package declares (`toolgate.env`, `toolgate.addons`). */
export function workerProfile(
  manifest: Pick<ToolManifest, 'permissions'>,
  at: { version: string; dir: string; entry: string; code: WorkerCode | null },
  declared: { env?: string[]; addons?: boolean },
): WorkerProfile {
  const scopes = manifest.permissions.scopes;
  return {
    entry: at.entry,
    version: at.version,
    packageJson: join(at.dir, 'package.json'),
    code: at.code && { root: at.code.root, hash: at.code.hash },
    env: pluginEnv(declared.env),
    readPaths: scopes.includes('fs:read') || scopes.includes('fs:write') ? ['*'] : pluginLoadPaths(at.dir),
    write: scopes.includes('fs:write'),
    spawn: scopes.some((scope) => scope.startsWith('proc:')),
    addons: declared.addons === true,
  };
}

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));
/** Room a reply frame may take beyond the output it carries (envelope, error messages, log fields). */
const FRAME_OVERHEAD_BYTES = 64 * 1024;
/** The tail of a worker's stderr kept to explain its death (e.g. V8's heap-exhaustion report). */
const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * What one worker process may do, fixed when it starts (Node's permission model works per process):
 * a pool's workers share one profile, derived from the scopes of the tool they run.
 */
export interface WorkerProfile {
  /** Absolute path of the plugin package's tools entry. */
  entry: string;
  /** The package version the catalog loaded from that folder, and the folder's package.json: a worker refuses a folder that now holds another version. */
  version: string;
  packageJson: string;
  /** The code tree the catalog loaded for that version and its hash: a worker refuses to load anything else (null: too large to hash, not checked). */
  code: { root: string; hash: string } | null;
  /** The whole environment the process gets: only what the plugin declared, nothing of the host's. */
  env: Record<string, string>;
  /** Paths the process may read (its package, the node_modules it resolves from, the sdk); `*` for tools with `fs:read`. */
  readPaths: string[];
  /** `fs:write` tools may write; others may not write anywhere. */
  write: boolean;
  /** `proc:*` tools may start processes; others may not (child_process, worker_threads, process.binding alike). */
  spawn: boolean;
  /** The package declared `toolgate.addons`: native addons may load (native code is beyond the permission model). */
  addons: boolean;
}

/** Where a call's logs and span updates go in the host. */
export interface CallSinks {
  logger: ToolLogger;
  span: ToolSpan;
}

interface PendingCall {
  request: WorkerRequest;
  resolve: (value: unknown) => void;
  reject: (error: ToolgateError) => void;
  sinks: CallSinks;
  settled: boolean;
  /** The worker stays reserved after this request (a load before the reserved call). */
  keep: boolean;
  detach: () => void;
  killTimer?: NodeJS.Timeout;
}

/** Rebuilds a worker-side error as a typed host error; system errors keep their code on the cause so retry rules can read it. */
function revive(error: SerializedError, tool: string): ToolgateError {
  if (error.name === 'ToolgateError' && error.code && KNOWN_CODES.has(error.code)) {
    const revived = new ToolgateError(error.code as ErrorCode, error.message, error.details ?? []);
    if (error.transient) Object.assign(revived, { transient: true });
    return revived;
  }
  const cause = Object.assign(new Error(error.message), { name: error.name, code: error.causeCode ?? error.code, transient: error.transient });
  return new ToolgateError(ErrorCode.TOOL_FAILED, `${tool} failed: ${error.message}`, [], { cause });
}

export interface WorkerEvents {
  free: (worker: PluginWorker) => void;
  exited: (worker: PluginWorker) => void;
}

/** Frames the worker sends: 4-byte big-endian length, then JSON. A frame over `maxBytes` kills the worker before it is buffered. */
function readFrames(stream: Readable, maxBytes: number, onFrame: (message: unknown) => void, onOversize: (bytes: number) => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const size = buffered.readUInt32BE(0);
      if (size > maxBytes) {
        buffered = Buffer.alloc(0);
        stream.destroy();
        onOversize(size);
        return;
      }
      if (buffered.length < 4 + size) return;
      const body = buffered.subarray(4, 4 + size);
      buffered = buffered.subarray(4 + size);
      try {
        onFrame(JSON.parse(body.toString('utf8')));
      } catch {
        // Not a frame the host sent the code for: the plugin wrote to the channel itself.
        stream.destroy();
        onOversize(-1);
        return;
      }
    }
  });
}

function writeFrame(stream: Writable, message: unknown): void {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  stream.write(Buffer.concat([header, body]));
}

/** The command line of a worker process: the permission model from its profile, the heap limit, the worker's code. */
export function workerArguments(profile: WorkerProfile, options: Pick<WorkerOptions, 'heapMb'>): string[] {
  return [
    PERMISSION_FLAG,
    '--disable-warning=ExperimentalWarning',
    ...profile.readPaths.map((path) => `--allow-fs-read=${path}`),
    ...(profile.write ? ['--allow-fs-write=*'] : []),
    ...(profile.spawn ? ['--allow-child-process', '--allow-worker'] : []),
    ...(profile.addons ? ['--allow-addons'] : []),
    `--max-old-space-size=${options.heapMb}`,
    `--max-semi-space-size=${Math.min(64, Math.max(1, Math.floor(options.heapMb / 16)))}`,
    '-e',
    TOOL_WORKER_SOURCE,
  ];
}

/**
 * One worker process running one call at a time. A process rather than a thread: its heap, its
 * environment and what it may touch (files, processes) are its own, enforced by the OS and Node's
 * permission model, and whatever it does to its memory can never abort the gateway.
 */
export class PluginWorker {
  alive = true;
  /** Tools this process has loaded and verified (a reserved worker skips the load round trip for them). */
  readonly loaded = new Set<string>();
  private readonly child: ChildProcess;
  private pending: PendingCall | undefined;
  private stopping: ToolgateError | undefined;
  private stderrTail = '';

  constructor(
    profile: WorkerProfile,
    private readonly options: WorkerOptions,
    private events: WorkerEvents,
  ) {
    this.child = spawn(process.execPath, workerArguments(profile, options), { env: profile.env, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    const [stdin, , stderr, replies] = this.child.stdio as unknown as [Writable, null, Readable, Readable];
    stdin.on('error', () => undefined);
    stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    readFrames(
      replies,
      options.maxOutputBytes + FRAME_OVERHEAD_BYTES,
      (reply) => this.onReply(reply as WorkerReply),
      (bytes) => {
        void this.stop(
          new ToolgateError(
            ErrorCode.OUTPUT_TOO_LARGE,
            bytes < 0
              ? `${this.pending?.request.tool ?? 'plugin'} wrote to the host channel itself; its worker was replaced`
              : `${this.pending?.request.tool ?? 'plugin'} sent ${bytes} bytes, over the limit of ${options.maxOutputBytes}; its worker was replaced`,
          ),
        );
      },
    );
    this.child.on('error', (error: Error) => this.onCrash(error));
    this.child.on('exit', (code, signal) => this.onExit(code, signal));
    writeFrame(stdin, {
      type: 'boot',
      boot: { entry: profile.entry, version: profile.version, packageJson: profile.packageJson, code: profile.code, netHosts: options.netHosts, sdk: BUILT_SDK_ENTRY },
    });
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Moves a spare into the pool that takes it. */
  adopt(events: WorkerEvents): void {
    this.events = events;
  }

  /** Runs one request; the worker goes back to its pool when it answers, unless `keep` (it stays reserved). */
  call(request: WorkerRequest, signal: AbortSignal, sinks: CallSinks, keep = false): Promise<unknown> {
    this.child.ref();
    return new Promise((resolve, reject) => {
      const onAbort = () => this.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending = { request, resolve, reject, sinks, settled: false, keep, detach: () => signal.removeEventListener('abort', onAbort) };
      writeFrame(this.child.stdin as Writable, request);
    });
  }

  /** Kills the process; a call in progress ends with `reason`. */
  stop(reason: ToolgateError): Promise<void> {
    this.stopping ??= reason;
    if (!this.alive) return Promise.resolve();
    return new Promise((done) => {
      this.child.once('exit', () => done());
      this.child.kill('SIGKILL');
    });
  }

  idle(): void {
    // An idle worker must not keep the host's event loop alive.
    this.child.unref();
    for (const stream of this.child.stdio) (stream as { unref?: () => void } | null)?.unref?.();
  }

  /** The caller stops waiting now; the tool gets the abort and a grace period to stop before the process is killed. */
  private abort(reason: unknown): void {
    const call = this.pending;
    if (!call || call.settled) return;
    const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
    const tool = call.request.tool;
    this.settle(
      ToolgateError.is(reason, ErrorCode.CANCELLED)
        ? reason
        : timedOut
          ? new ToolgateError(ErrorCode.TIMEOUT, `${tool} timed out`, [], { cause: reason })
          : new ToolgateError(ErrorCode.CANCELLED, `call of ${tool} cancelled`, [], { cause: reason }),
    );
    writeFrame(this.child.stdin as Writable, { type: 'abort', callId: call.request.callId, reason: timedOut ? 'TIMEOUT' : 'CANCELLED' });
    call.killTimer = setTimeout(() => void this.stop(new ToolgateError(ErrorCode.TIMEOUT, `${tool} ignored its abort signal`)), this.options.killGraceMs);
  }

  private settle(error: ToolgateError | undefined, value?: unknown): void {
    const call = this.pending;
    if (!call || call.settled) return;
    call.settled = true;
    call.detach();
    if (error) call.reject(error);
    else call.resolve(value);
  }

  private onReply(reply: WorkerReply): void {
    const call = this.pending;
    if (!call || reply.callId !== call.request.callId) return;
    if (reply.type === 'log') {
      call.sinks.logger[reply.level](reply.message, reply.fields);
      return;
    }
    if (reply.type === 'span') {
      if (reply.attribute) call.sinks.span.setAttribute(...reply.attribute);
      if (reply.event) call.sinks.span.addEvent(reply.event.name, reply.event.attributes);
      return;
    }
    if (reply.ok) {
      this.loaded.add(call.request.tool);
      this.settle(undefined, reply.value);
    } else this.settle(revive(reply.error, call.request.tool));
    clearTimeout(call.killTimer);
    this.pending = undefined;
    if (!call.keep) this.events.free(this);
  }

  private onCrash(error: Error): void {
    const tool = this.pending?.request.tool ?? 'plugin';
    this.settle(new ToolgateError(ErrorCode.TOOL_FAILED, `${tool} crashed its worker: ${error.message}`, [], { cause: error }));
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.alive = false;
    const call = this.pending;
    if (call) {
      clearTimeout(call.killTimer);
      const tool = call.request.tool;
      const outOfMemory = /heap out of memory|Reached heap limit|allocation failed/i.test(this.stderrTail);
      this.settle(
        this.stopping ??
          (outOfMemory
            ? new ToolgateError(ErrorCode.TOOL_FAILED, `${tool} exhausted its memory limit (${this.options.heapMb} MB heap); its worker was replaced`)
            : new ToolgateError(ErrorCode.TOOL_FAILED, `${tool}'s worker exited (${signal ?? `code ${code}`})${this.stderrTail ? `: ${lastLine(this.stderrTail)}` : ''}`)),
      );
      this.pending = undefined;
    }
    this.events.exited(this);
  }
}

const lastLine = (text: string): string =>
  text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-1)[0]
    ?.slice(0, 300) ?? '';
