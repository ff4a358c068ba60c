import { type CircuitState, ConsecutiveBreaker, type IBreaker, SamplingBreaker } from 'cockatiel';

export type BreakerMode = 'consecutive' | 'sampling';

const BUCKETS = 10;

/**
 * Opens on N consecutive failures while a tool version is quiet, and on a failure ratio over a sliding
 * window once it is busy (at or above `busyRps`): a few scattered failures of a busy tool should not
 * trip it, while a quiet tool never collects enough samples for a ratio. Both cockatiel breakers see
 * every outcome; the observed call rate picks whose verdict counts.
 */
export class AdaptiveBreaker implements IBreaker {
  private readonly consecutive: ConsecutiveBreaker;
  private readonly sampling: SamplingBreaker;
  private readonly bucketMs: number;
  private readonly counts = new Array<number>(BUCKETS).fill(0);
  private bucketStart = 0;
  private bucket = 0;

  constructor(private readonly options: { consecutiveFailures: number; busyRps: number; failureRatio: number; windowMs: number }) {
    this.consecutive = new ConsecutiveBreaker(options.consecutiveFailures);
    this.sampling = new SamplingBreaker({ threshold: options.failureRatio, duration: options.windowMs, minimumRps: options.busyRps });
    this.bucketMs = options.windowMs / BUCKETS;
  }

  get state(): unknown {
    return { consecutive: this.consecutive.state, sampling: this.sampling.state };
  }

  set state(value: unknown) {
    const { consecutive, sampling } = value as { consecutive: number; sampling: unknown };
    this.consecutive.state = consecutive;
    this.sampling.state = sampling;
  }

  /** Failures in a row right now (reset by a success). */
  get consecutiveFailures(): number {
    return this.consecutive.state;
  }

  get mode(): BreakerMode {
    return this.observedRps() >= this.options.busyRps ? 'sampling' : 'consecutive';
  }

  /** Calls per second over the sampling window. */
  observedRps(now = Date.now()): number {
    this.rotate(now);
    return this.counts.reduce((a, b) => a + b, 0) / (this.options.windowMs / 1000);
  }

  success(state: CircuitState): void {
    this.record();
    this.consecutive.success();
    this.sampling.success(state);
  }

  failure(state: CircuitState): boolean {
    this.record();
    const byCount = this.consecutive.failure();
    const byRatio = this.sampling.failure(state);
    return this.mode === 'sampling' ? byRatio : byCount;
  }

  private record(now = Date.now()): void {
    this.rotate(now);
    this.counts[this.bucket]++;
  }

  private rotate(now: number): void {
    const elapsed = Math.floor((now - this.bucketStart) / this.bucketMs);
    if (elapsed <= 0) return;
    for (let i = 1; i <= Math.min(elapsed, BUCKETS); i++) this.counts[(this.bucket + i) % BUCKETS] = 0;
    this.bucket = (this.bucket + elapsed) % BUCKETS;
    this.bucketStart += elapsed * this.bucketMs;
  }
}
