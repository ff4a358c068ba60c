/** Ranking metrics for one query: `ranked` is best first, `gold` the relevant ids (binary relevance). */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** 1 when every gold id is in the top k ("completeness"), else 0. */
export function completeAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return gold.every((g) => top.has(g)) ? 1 : 0;
}

export function ndcgAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const relevant = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Reciprocal rank of the first gold id (0 when none is ranked). */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const relevant = new Set(gold);
  const index = ranked.findIndex((id) => relevant.has(id));
  return index < 0 ? 0 : 1 / (index + 1);
}

export function percentile(sortedValues: readonly number[], p: number): number {
  if (sortedValues.length === 0) return 0;
  const index = Math.min(sortedValues.length - 1, Math.max(0, Math.ceil((p / 100) * sortedValues.length) - 1));
  return sortedValues[index];
}

export interface RetrievalReport {
  queries: number;
  /** `recall@k`, `ndcg@k`, `comp@k` for each k, and `mrr`: means over queries, in [0,1]. */
  metrics: Record<string, number>;
  latencyMs: { p50: number; p95: number; mean: number };
}

/** Accumulates per-query results into the report. */
export class RetrievalScorer {
  private readonly sums = new Map<string, number>();
  private readonly latencies: number[] = [];

  constructor(private readonly ks: readonly number[]) {}

  add(ranked: readonly string[], gold: readonly string[], latencyMs: number): void {
    const add = (key: string, value: number) => this.sums.set(key, (this.sums.get(key) ?? 0) + value);
    for (const k of this.ks) {
      add(`recall@${k}`, recallAt(ranked, gold, k));
      add(`ndcg@${k}`, ndcgAt(ranked, gold, k));
      add(`comp@${k}`, completeAt(ranked, gold, k));
    }
    add('mrr', reciprocalRank(ranked, gold));
    this.latencies.push(latencyMs);
  }

  report(): RetrievalReport {
    const n = this.latencies.length;
    const metrics = Object.fromEntries([...this.sums].map(([key, sum]) => [key, n === 0 ? 0 : sum / n]));
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const mean = n === 0 ? 0 : sorted.reduce((a, b) => a + b, 0) / n;
    return { queries: n, metrics, latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean } };
  }
}
