import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { Embedder, type EmbeddingKind } from '../embedder.port';
import { ThreadedOnnxEmbedder } from './threaded-onnx.embedder';

/** How long an extra worker stays up with nothing to do before it gives its memory back. */
export const EXTRA_WORKER_IDLE_MS = 30_000;

/**
 * The local model in up to N worker threads, for many concurrent searches: one worker runs one text
 * at a time, so with callers queueing for it, a second worker on another core raises the model's
 * throughput (1k tools, 50 callers, 2 cores: 287 -> 346 searches/s, bench/retrieval). The first worker
 * serves alone until calls queue for it (see `pick`); then the next one starts in the background
 * (calls keep going to the started ones meanwhile) and takes the overflow. An extra worker idle for
 * `idleMs` is stopped, so an idle server holds one model. Each text still runs alone through the
 * model, so a text's vector is the same whichever worker computed it.
 */
export class OnnxWorkerPool extends Embedder {
  override readonly languages: readonly string[] | undefined;
  private readonly idleTimers = new Map<ThreadedOnnxEmbedder, NodeJS.Timeout>();
  /** Calls each member was given and has not answered (counted here: a member counts a call only once it reaches its worker). */
  private readonly busy = new Map<ThreadedOnnxEmbedder, number>();
  /** Members loading their model: calls keep going to the started ones meanwhile. */
  private readonly warming = new Set<ThreadedOnnxEmbedder>();
  /** Members whose start failed: not tried again (the pool serves with the others). */
  private readonly unavailable = new Set<ThreadedOnnxEmbedder>();

  constructor(
    private readonly members: readonly ThreadedOnnxEmbedder[],
    private readonly idleMs = EXTRA_WORKER_IDLE_MS,
    private readonly queueDepth = 2,
    private readonly maxLoopBusy = 0.9,
  ) {
    super();
    if (members.length === 0) throw new Error('an embedder pool needs at least one member');
    this.languages = members[0].languages;
  }

  /**
   * Up to `workers` workers of the model in `dir`, `threads` ONNX threads each. `boot`: the first loads
   * now (MODEL_UNAVAILABLE at once when it cannot); `first-use`: with the first embedding. Extra workers
   * start only under load.
   */
  static async create(dir: string, options: { threads?: number; workers?: number; load?: 'boot' | 'first-use' } = {}): Promise<Embedder> {
    const { threads = 1, workers = 1, load = 'boot' } = options;
    const first = load === 'first-use' ? ThreadedOnnxEmbedder.onFirstUse(dir, threads) : await ThreadedOnnxEmbedder.start(dir, threads);
    if (workers <= 1) return first;
    return new OnnxWorkerPool([first, ...Array.from({ length: workers - 1 }, () => ThreadedOnnxEmbedder.onFirstUse(dir, threads))]);
  }

  get model(): string {
    return this.members[0].model;
  }

  get dimensions(): number {
    return this.members[0].dimensions;
  }

  embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    return this.through((member) => member.embed(texts, kind));
  }

  override embedWithParts(text: string, parts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    return this.through((member) => member.embedWithParts(text, parts, kind));
  }

  override async close(): Promise<void> {
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    await Promise.all(this.members.map((member) => member.close()));
  }

  private async through(call: (member: ThreadedOnnxEmbedder) => Promise<Float32Array[]>): Promise<Float32Array[]> {
    const member = this.pick();
    const timer = this.idleTimers.get(member);
    if (timer) clearTimeout(timer);
    this.idleTimers.delete(member);
    this.busy.set(member, this.busyOf(member) + 1);
    try {
      return await call(member);
    } finally {
      this.busy.set(member, this.busyOf(member) - 1);
      if (member !== this.members[0] && this.busyOf(member) === 0) this.parkLater(member);
    }
  }

  private busyOf(member: ThreadedOnnxEmbedder): number {
    return this.busy.get(member) ?? 0;
  }

  /**
   * The first started member with fewer than `queueDepth` calls waiting, else the least busy one; the
   * next member starts when every started one has that many waiting and this thread's event loop was
   * busy less than `maxLoopBusy` of the last quarter second. A queue is the sign that the model is the
   * bottleneck; a saturated loop, that the ranking around it is: with 10k tools on 2 cores a second
   * worker there took CPU from it (50 callers: same searches/s, p99 870 ms instead of 400).
   */
  private pick(): ThreadedOnnxEmbedder {
    const started = this.members.filter((member, i) => i === 0 || (member.started && !this.warming.has(member)));
    const free = started.find((member) => this.busyOf(member) < this.queueDepth);
    if (free) return free;
    // This thread runs every search's ranking: when it is the bottleneck, a second model would only slow it.
    if (this.loopBusy() >= this.maxLoopBusy) return started.reduce((a, b) => (this.busyOf(b) < this.busyOf(a) ? b : a));
    const next = this.members.find((member) => !member.started && !this.unavailable.has(member));
    if (next) {
      this.warming.add(next);
      void next.warm().then((ok) => {
        this.warming.delete(next);
        if (!ok) this.unavailable.add(next);
        else if (this.busyOf(next) === 0) this.parkLater(next);
      });
    }
    return started.reduce((a, b) => (this.busyOf(b) < this.busyOf(a) ? b : a));
  }

  private eluMark: EventLoopUtilization = performance.eventLoopUtilization();
  private eluAt = performance.now();
  private elu = 0;

  /** The share of the last quarter second (or more) this thread's event loop was busy. */
  private loopBusy(): number {
    const now = performance.now();
    if (now - this.eluAt >= 250) {
      const current = performance.eventLoopUtilization();
      this.elu = performance.eventLoopUtilization(current, this.eluMark).utilization;
      this.eluMark = current;
      this.eluAt = now;
    }
    return this.elu;
  }

  private parkLater(member: ThreadedOnnxEmbedder): void {
    const previous = this.idleTimers.get(member);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => {
      this.idleTimers.delete(member);
      if (this.busyOf(member) === 0) void member.park();
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(member, timer);
  }
}
