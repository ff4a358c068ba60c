import { percentile } from '@toolgate/retrieval/evaluation';

export interface LatencyStats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

/** Milliseconds, rounded to 10 µs; `percentile` is the one the eval CLI reports. */
export function latency(samples: readonly number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    mean: round(mean),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

export const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 3) : null);

export { round };

/** Wall time of `fn` in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) {
    collect();
    collect();
  }
}

export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
