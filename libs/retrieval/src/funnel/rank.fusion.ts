import type { RankedHit } from '../index/tool-index.port';

export interface FusedCandidate {
  id: string;
  version: string;
  fused: number;
  /** Rank and score on each side that found it. */
  lexical?: { rank: number; score: number; matchedTerms: string[] };
  semantic?: { rank: number; score: number };
  /** Set by the rerank stage: its score and rank, or why the fused order was kept (`fallback`). */
  rerank?: { reranker: string; score?: number; rank?: number; fallback?: string };
  /** For a request split into clauses: the clause whose search found this candidate. */
  clause?: { index: number; text: string };
  /**
   * Ranked beside a stronger candidate it is used with: that tool, whether its manifest declares this
   * one, and the share of its requests that also used this one (the declared share for a declaration).
   */
  companion?: { of: string; share: number; declared: boolean };
}

/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009): score = Σ w / (k + rank). Rank-based, so
 * BM25 scores and cosine similarities need no calibration against each other.
 */
export function reciprocalRankFusion(lexical: RankedHit[], semantic: RankedHit[], weights: { lexical: number; semantic: number }, k = 60): FusedCandidate[] {
  const fused = new Map<string, FusedCandidate>();
  const candidate = (hit: RankedHit) => {
    let c = fused.get(hit.id);
    if (!c) {
      c = { id: hit.id, version: hit.version, fused: 0 };
      fused.set(hit.id, c);
    }
    return c;
  };
  for (const hit of lexical) {
    const c = candidate(hit);
    c.lexical = { rank: hit.rank, score: hit.score, matchedTerms: hit.matchedTerms ?? [] };
    c.fused += weights.lexical / (k + hit.rank);
  }
  for (const hit of semantic) {
    const c = candidate(hit);
    c.semantic = { rank: hit.rank, score: hit.score };
    c.fused += weights.semantic / (k + hit.rank);
  }
  return [...fused.values()].sort((a, b) => b.fused - a.fused || a.id.localeCompare(b.id));
}
