import { completeAt, ndcgAt, percentile, RetrievalScorer, recallAt, reciprocalRank } from './retrieval.metrics';

describe('retrieval metrics', () => {
  const ranked = ['a', 'b', 'c', 'd'];

  it('computes recall, completeness and reciprocal rank', () => {
    expect(recallAt(ranked, ['b', 'x'], 2)).toBe(0.5);
    expect(completeAt(ranked, ['b', 'c'], 2)).toBe(0);
    expect(completeAt(ranked, ['b', 'c'], 3)).toBe(1);
    expect(reciprocalRank(ranked, ['c', 'd'])).toBeCloseTo(1 / 3);
    expect(reciprocalRank(ranked, ['z'])).toBe(0);
  });

  it('computes binary nDCG against the ideal ranking', () => {
    expect(ndcgAt(ranked, ['a'], 5)).toBe(1);
    expect(ndcgAt(ranked, ['b'], 5)).toBeCloseTo(1 / Math.log2(3));
    expect(ndcgAt(ranked, ['b', 'a'], 2)).toBe(1);
    expect(ndcgAt(ranked, ['d'], 3)).toBe(0);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([], 50)).toBe(0);
  });

  it('averages over queries', () => {
    const scorer = new RetrievalScorer([1, 5]);
    scorer.add(['a', 'b'], ['a'], 2);
    scorer.add(['a', 'b'], ['b'], 4);
    const report = scorer.report();
    expect(report.queries).toBe(2);
    expect(report.metrics).toMatchObject({ 'recall@1': 0.5, 'recall@5': 1, mrr: 0.75 });
    expect(report.latencyMs).toEqual({ p50: 2, p95: 4, mean: 3 });
  });
});
