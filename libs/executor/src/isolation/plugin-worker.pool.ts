import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ErrorCode, ToolgateError, type ToolLogger, type ToolSpan } from '@toolgate/sdk';
import type { IsolationOptions } from '../resilience/resilience.config';
import { TOOL_WORKER_SOURCE } from './tool-worker.main';
import type { SerializedError, WorkerReply, WorkerRequest } from './tool-worker.protocol';

/**
 * The host's built sdk, for the worker's descriptor-hash check. Resolved through its package.json so a
 * test runner's module map (which points `@toolgate/sdk` at TypeScript sources) does not apply.
 */
const SDK_PACKAGE = createRequire(__filename).resolve('@toolgate/sdk/package.json');
const SDK_ENTRY = resolve(dirname(SDK_PACKAGE), (JSON.parse(readFileSync(SDK_PACKAGE, 'utf8')) as { main: string }).main);
const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

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

/** One worker thread running one call at a time. */
class PluginWorker {
  alive = true;
  private readonly thread: Worker;
  private pending: PendingCall | undefined;
  private stopping: ToolgateError | undefined;

  constructor(
    entry: string,
    private readonly options: IsolationOptions,
    private readonly events: { free: (worker: PluginWorker) => void; exited: (worker: PluginWorker) => void },
  ) {
    this.thread = new Worker(TOOL_WORKER_SOURCE, {
      eval: true,
      workerData: { entry, netHosts: options.netHosts, sdk: SDK_ENTRY },
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(4, Math.floor(options.heapMb / 8))) },
    });
    this.thread.on('message', (reply: WorkerReply) => this.onReply(reply));
    this.thread.on('error', (error: Error & { code?: string }) => this.onCrash(error));
    this.thread.on('exit', (code) => this.onExit(code));
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  call(request: WorkerRequest, signal: AbortSignal, sinks: CallSinks): Promise<unknown> {
    this.thread.ref();
    return new Promise((resolve, reject) => {
      const onAbort = () => this.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending = { request, resolve, reject, sinks, settled: false, detach: () => signal.removeEventListener('abort', onAbort) };
      this.thread.postMessage(request);
    });
  }

  /** Terminates the thread; a call in progress ends with `reason`. */
  stop(reason: ToolgateError): Promise<number> {
    this.stopping ??= reason;
    return this.thread.terminate();
  }

  idle(): void {
    this.thread.unref();
  }

  /** The caller stops waiting now; the tool gets the abort and a grace period to stop before the thread is terminated. */
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
    this.thread.postMessage({ type: 'abort', callId: call.request.callId, reason: timedOut ? 'TIMEOUT' : 'CANCELLED' });
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
    if (reply.ok) this.settle(undefined, reply.value);
    else this.settle(revive(reply.error, call.request.tool));
    clearTimeout(call.killTimer);
    this.pending = undefined;
    this.events.free(this);
  }

  private onCrash(error: Error & { code?: string }): void {
    const tool = this.pending?.request.tool ?? 'plugin';
    const typed =
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new ToolgateError(ErrorCode.TOOL_FAILED, `${tool} exhausted its memory limit (${this.options.heapMb} MB heap); its worker was replaced`, [], { cause: error })
        : new ToolgateError(ErrorCode.TOOL_FAILED, `${tool} crashed its worker: ${error.message}`, [], { cause: error });
    this.settle(typed);
  }

  private onExit(code: number): void {
    this.alive = false;
    const call = this.pending;
    if (call) {
      clearTimeout(call.killTimer);
      this.settle(this.stopping ?? new ToolgateError(ErrorCode.TOOL_FAILED, `${call.request.tool}'s worker exited (code ${code})`));
      this.pending = undefined;
    }
    this.events.exited(this);
  }
}

/**
 * Workers of one plugin package version: at most `poolSize` threads, each running one call at a time;
 * further calls wait (the bulkhead in front bounds how many). A worker that is terminated (timeout,
 * abort ignored, out of memory, crash) is replaced on demand; the others keep serving.
 */
export class PluginWorkerPool {
  private readonly idleWorkers: PluginWorker[] = [];
  private readonly workers = new Set<PluginWorker>();
  private readonly waiters: { grant: (worker: PluginWorker) => void; fail: (error: ToolgateError) => void }[] = [];
  private closed = false;

  constructor(
    private readonly entry: string,
    private readonly options: IsolationOptions,
  ) {}

  /** Live worker threads (for tests and metrics). */
  get size(): number {
    return this.workers.size;
  }

  /** No worker is idle and another may still be started: the next call would pay for a cold start. */
  get needsWorker(): boolean {
    return this.idleWorkers.length === 0 && this.workers.size < this.options.poolSize;
  }

  async call(request: WorkerRequest, signal: AbortSignal, sinks: CallSinks): Promise<unknown> {
    const worker = await this.acquire(signal, request.tool);
    if (signal.aborted) {
      this.freed(worker);
      throw new ToolgateError(ErrorCode.CANCELLED, `call of ${request.tool} cancelled before it started`, [], { cause: signal.reason });
    }
    return worker.call(request, signal, sinks);
  }

  async close(): Promise<void> {
    this.closed = true;
    const reason = new ToolgateError(ErrorCode.CANCELLED, 'the executor shut down before the call finished');
    for (const waiter of this.waiters.splice(0)) waiter.fail(reason);
    await Promise.all([...this.workers].map((w) => w.stop(reason)));
  }

  private acquire(signal: AbortSignal, tool: string): Promise<PluginWorker> {
    if (this.closed) return Promise.reject(new ToolgateError(ErrorCode.UNAVAILABLE, 'the executor is shutting down'));
    if (signal.aborted) return Promise.reject(new ToolgateError(ErrorCode.CANCELLED, `call of ${tool} cancelled before it started`, [], { cause: signal.reason }));
    const idle = this.idleWorkers.pop();
    if (idle) return Promise.resolve(idle);
    if (this.workers.size < this.options.poolSize) return Promise.resolve(this.spawn());
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (worker: PluginWorker) => {
          signal.removeEventListener('abort', onAbort);
          resolve(worker);
        },
        fail: (error: ToolgateError) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.fail(new ToolgateError(ErrorCode.CANCELLED, `call of ${tool} cancelled while waiting for a worker`, [], { cause: signal.reason }));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private spawn(): PluginWorker {
    const worker = new PluginWorker(this.entry, this.options, { free: (w) => this.freed(w), exited: (w) => this.exited(w) });
    this.workers.add(worker);
    return worker;
  }

  private freed(worker: PluginWorker): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter.grant(worker);
      return;
    }
    worker.idle();
    this.idleWorkers.push(worker);
  }

  private exited(worker: PluginWorker): void {
    this.workers.delete(worker);
    const at = this.idleWorkers.indexOf(worker);
    if (at >= 0) this.idleWorkers.splice(at, 1);
    const waiter = this.waiters.shift();
    if (waiter && !this.closed) waiter.grant(this.spawn());
  }
}
