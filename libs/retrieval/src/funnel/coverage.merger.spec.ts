import { mergeClauseRankings } from './coverage.merger';
import type { FusedCandidate } from './rank.fusion';

const c = (id: string, fused: number, rerankScore?: number): FusedCandidate => ({
  id,
  version: '1',
  fused,
  ...(rerankScore === undefined ? {} : { rerank: { reranker: 'feature', score: rerankScore } }),
});

describe('mergeClauseRankings', () => {
  it("gives a clause's best tool a slot above the whole request's runners-up", () => {
    const whole = [c('hotel', 0.9, 1.2), c('hotel-2', 0.8, 1.1), c('hotel-3', 0.7, 1.0), c('weather', 0.1, 0.2)];
    const clauses = [[c('hotel', 0.9, 1.3)], [{ ...c('weather', 0.9, 1.25), clause: { index: 1, text: 'check the weather' } }, c('hotel', 0.1, 0.1)]];
    const merged = mergeClauseRankings(whole, clauses, { clauseWeight: 0.9, positionPenalty: 0.02 });
    expect(merged.map((m) => m.id)).toEqual(['hotel', 'weather', 'hotel-2', 'hotel-3']);
    // Each tool keeps the explanation of the list where it stood best.
    expect(merged[1].clause).toEqual({ index: 1, text: 'check the weather' });
    expect(merged[0].rerank?.score).toBe(1.2);
  });

  it('ranks within a clause by position, and compares fused scores relative to each list when nothing was reranked', () => {
    const merged = mergeClauseRankings([c('a', 0.05), c('b', 0.04)], [[c('x', 0.02), c('y', 0.019)]], { clauseWeight: 0.9, positionPenalty: 0.02 });
    // a: 1, x: 0.9, b: 0.8, y: 0.9 * 0.95 - 0.02 = 0.835
    expect(merged.map((m) => m.id)).toEqual(['a', 'x', 'y', 'b']);
  });

  it('puts tools past the rerank depth after every scored one, keeping all of them', () => {
    const merged = mergeClauseRankings([c('scored', 0.01, 0.1), c('tail', 0.009)], [[c('clause-tail', 0.5), c('other', 0.4, 0.05)]], { clauseWeight: 1, positionPenalty: 0 });
    expect(merged.map((m) => m.id)).toEqual(['scored', 'other', 'tail', 'clause-tail']);
  });
});
