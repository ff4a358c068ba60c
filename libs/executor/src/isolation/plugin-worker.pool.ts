import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { type CallSinks, type LoadRequest, PluginWorker, type WorkerEvents, type WorkerProfile, type WorkerRequest } from '@toolgate/sdk/sandbox';
import type { IsolationOptions } from '../resilience/resilience.config';

/**
 * Started and loaded workers of one package and profile that no call has used yet, so they carry no
 * caller's state: any tenant's pool may take one, and start-up (process, module load) is paid ahead.
 */
export class SpareWorkers {
  private readonly ready: PluginWorker[] = [];
  private filling = false;
  private closed = false;

  constructor(
    private readonly profile: WorkerProfile,
    private readonly options: IsolationOptions,
  ) {}

  /** Starts one spare and loads `load`'s tool in it, unless one is ready or starting. */
  async fill(load: LoadRequest, sinks: CallSinks): Promise<void> {
    if (this.closed || this.filling || this.ready.length > 0) return;
    this.filling = true;
    const worker = new PluginWorker(this.profile, this.options, {
      free: () => undefined,
      exited: (w) => {
        const at = this.ready.indexOf(w);
        if (at >= 0) this.ready.splice(at, 1);
      },
    });
    try {
      await worker.call(load, new AbortController().signal, sinks);
      if (this.closed) void worker.stop(new ToolgateError(ErrorCode.UNAVAILABLE, 'spare no longer wanted'));
      else {
        worker.idle();
        this.ready.push(worker);
      }
    } finally {
      this.filling = false;
    }
  }

  take(): PluginWorker | undefined {
    return this.ready.pop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.ready.splice(0).map((w) => w.stop(new ToolgateError(ErrorCode.UNAVAILABLE, 'spare no longer wanted'))));
  }
}

/** How long calls wait for a busy pool before it starts another worker: short calls drain a queue sooner than a process starts. */
const GROW_AFTER_MS = 100;

/**
 * Workers of one plugin package version for one tenant and profile: at most `poolSize` processes, each running one call at a time;
 * further calls wait (the bulkhead in front bounds how many). A worker that is terminated (timeout,
 * abort ignored, out of memory, crash) is replaced on demand; the others keep serving.
 *
 * The pool grows one start at a time, in the background, and only for a queue that does not drain: a
 * call that finds every worker busy waits for whichever frees first, and a worker is started only when
 * calls have waited `growAfterMs` (default 100 ms). A start costs a process and a module load (hundreds
 * of ms of CPU); a burst of short calls on a cold pool would otherwise start `poolSize` processes at
 * once and starve the very calls they were started for.
 */
export class PluginWorkerPool {
  private readonly idleWorkers: PluginWorker[] = [];
  private readonly workers = new Set<PluginWorker>();
  private readonly waiters: { grant: (worker: PluginWorker) => void; fail: (error: ToolgateError) => void }[] = [];
  /** Workers started in the background that have not loaded their first tool yet. */
  private readonly starting = new Set<PluginWorker>();
  /** What the last reservation loaded: what a worker started in the background loads, to be ready when it joins. */
  private lastLoad?: { load: LoadRequest; sinks: CallSinks };
  private growTimer?: NodeJS.Timeout;
  private closed = false;
  /** Retired: calls already running or waiting finish, then every worker stops; no new call comes. */
  private retiring = false;

  constructor(
    private readonly profile: WorkerProfile,
    private readonly options: IsolationOptions,
    /** Where a new worker comes from first; `took` is told so the spare can be replaced. */
    private readonly spares?: { take: () => PluginWorker | undefined; took: () => void },
  ) {}

  /** Live worker processes (for tests and metrics). */
  get size(): number {
    return this.workers.size;
  }

  async call(request: WorkerRequest, signal: AbortSignal, sinks: CallSinks): Promise<unknown> {
    const worker = await this.acquire(signal, request.tool);
    if (signal.aborted) {
      this.freed(worker);
      throw new ToolgateError(ErrorCode.CANCELLED, `call of ${request.tool} cancelled before it started`, [], { cause: signal.reason });
    }
    return worker.call(request, signal, sinks);
  }

  /**
   * Takes a worker for one call and has `load`'s tool loaded in it, waiting for a free worker when all
   * are busy; the worker is the caller's until it runs the call (`callOn`) or is given back.
   */
  async reserve(load: LoadRequest, signal: AbortSignal, sinks: CallSinks): Promise<PluginWorker> {
    this.lastLoad = { load, sinks };
    const worker = await this.acquire(signal, load.tool);
    try {
      if (signal.aborted) throw new ToolgateError(ErrorCode.CANCELLED, `call of ${load.tool} cancelled before it started`, [], { cause: signal.reason });
      if (!worker.loaded.has(load.tool)) await worker.call(load, signal, sinks, true);
      return worker;
    } catch (error) {
      if (worker.alive && !worker.busy) this.freed(worker);
      throw error;
    }
  }

  /** Runs a call on a worker `reserve` gave; it returns to the pool when the call ends. */
  callOn(worker: PluginWorker, request: WorkerRequest, signal: AbortSignal, sinks: CallSinks): Promise<unknown> {
    if (!worker.alive) return Promise.reject(new ToolgateError(ErrorCode.TOOL_FAILED, `${request.tool}'s reserved worker exited before the call`));
    return worker.call(request, signal, sinks);
  }

  /** Gives back a reserved worker whose call never ran. */
  giveBack(worker: PluginWorker): void {
    if (worker.alive && !worker.busy) this.freed(worker);
  }

  /** No call is running or waiting: closing now interrupts nothing. */
  get quiet(): boolean {
    return this.waiters.length === 0 && [...this.workers].every((w) => !w.busy);
  }

  async close(reason = new ToolgateError(ErrorCode.CANCELLED, 'the executor shut down before the call finished')): Promise<void> {
    this.closed = true;
    clearTimeout(this.growTimer);
    for (const waiter of this.waiters.splice(0)) waiter.fail(reason);
    await Promise.all([...this.workers].map((w) => w.stop(reason)));
  }

  private acquire(signal: AbortSignal, tool: string): Promise<PluginWorker> {
    if (this.closed) return Promise.reject(new ToolgateError(ErrorCode.UNAVAILABLE, 'the executor is shutting down'));
    if (signal.aborted) return Promise.reject(new ToolgateError(ErrorCode.CANCELLED, `call of ${tool} cancelled before it started`, [], { cause: signal.reason }));
    const idle = this.idleWorkers.pop();
    if (idle) return Promise.resolve(idle);
    // The first worker is the caller's own; after it, a reservation grows the pool in the background (above).
    if (this.workers.size === 0 || (this.workers.size < this.options.poolSize && !this.lastLoad)) return Promise.resolve(this.spawn());
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
      this.growSoon();
    });
  }

  private spawn(): PluginWorker {
    return this.spawned().worker;
  }

  private spawned(): { worker: PluginWorker; spare: boolean } {
    const events: WorkerEvents = { free: (w) => this.freed(w), exited: (w) => this.exited(w) };
    const spare = this.spares?.take();
    if (spare) {
      spare.adopt(events);
      this.spares?.took();
    }
    const worker = spare ?? new PluginWorker(this.profile, this.options, events);
    this.workers.add(worker);
    return { worker, spare: spare !== undefined };
  }

  /** Grows the pool if calls are still waiting `growAfterMs` from now. */
  private growSoon(): void {
    if (this.growTimer || !this.lastLoad) return;
    this.growTimer = setTimeout(() => {
      this.growTimer = undefined;
      if (this.waiters.length > 0) this.grow();
    }, this.options.growAfterMs ?? GROW_AFTER_MS);
    this.growTimer.unref();
  }

  /**
   * Starts one more worker when every one is busy, none is starting and the pool is not full; it loads
   * the last reserved tool and then joins as free (serving the first waiter). A spare joins at once.
   */
  private grow(): void {
    const last = this.lastLoad;
    if (!last || this.closed || this.retiring || this.starting.size > 0 || this.workers.size >= this.options.poolSize) return;
    const { worker, spare } = this.spawned();
    if (spare) {
      this.freed(worker);
      return;
    }
    this.starting.add(worker);
    // Not any caller's call: no caller's abort ends it. Its answer frees the worker (or its exit removes it).
    worker.call(last.load, new AbortController().signal, last.sinks).catch(() => undefined);
  }

  /** Stops idle workers now and the others as soon as their call (and any call waiting) ends. */
  async retire(): Promise<void> {
    this.retiring = true;
    const reason = new ToolgateError(ErrorCode.UNAVAILABLE, 'the plugin was reloaded');
    await Promise.all(this.idleWorkers.splice(0).map((w) => w.stop(reason)));
  }

  private freed(worker: PluginWorker): void {
    this.starting.delete(worker);
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter.grant(worker);
      if (this.waiters.length > 0) this.growSoon();
      return;
    }
    if (this.retiring) {
      void worker.stop(new ToolgateError(ErrorCode.UNAVAILABLE, 'the plugin was reloaded'));
      return;
    }
    worker.idle();
    this.idleWorkers.push(worker);
  }

  private exited(worker: PluginWorker): void {
    this.workers.delete(worker);
    this.starting.delete(worker);
    const at = this.idleWorkers.indexOf(worker);
    if (at >= 0) this.idleWorkers.splice(at, 1);
    const waiter = this.waiters.shift();
    if (waiter && !this.closed) waiter.grant(this.spawn());
  }
}
