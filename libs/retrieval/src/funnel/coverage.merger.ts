import type { FusedCandidate } from './rank.fusion';

/** A candidate in the final order, with the value that order sorts by (none past a reranker's depth: those follow, in fused order). */
export type RankedCandidate = FusedCandidate & { ranking?: number };

export interface ClauseMergeOptions {
  /** A clause's scores count this much against the whole request's (above 1: a clause's own best outranks the whole text's runners-up). */
  clauseWeight: number;
  /** Subtracted per rank inside a clause's list, so each clause's own best comes before its runners-up. */
  positionPenalty: number;
}

/**
 * Re-fitted when clause vectors became late-chunked (read in the request's context), on the
 * development sets only (Seal-Tools dev, UltraTool's non-test requests): a flat optimum around
 * clause weight 1-1.2 and penalty 0.04-0.1 (Seal dev R@5 .927 -> .943, UltraTool .695 -> .702).
 */
export const DEFAULT_CLAUSE_MERGE: ClauseMergeOptions = { clauseWeight: 1.1, positionPenalty: 0.06 };

/**
 * Each candidate's standing in one ranked list: its rerank score, or its fused score relative to the
 * list's best when the list was not reranked. Past the rerank depth a tool has no comparable score
 * (undefined): it follows every scored one.
 */
export function standings(list: readonly FusedCandidate[]): (candidate: FusedCandidate) => number | undefined {
  const reranked = list.some((c) => c.rerank?.score !== undefined);
  const top = Math.max(0, ...list.map((c) => c.fused));
  return (candidate) => (reranked ? candidate.rerank?.score : top > 0 ? candidate.fused / top : 0);
}

/**
 * Merges the ranking of the whole request with one ranking per clause: each tool stands at its best
 * value over the lists (its rerank score, or its fused score relative to the list's best when the
 * list was not reranked), so the tool a clause asks for gets a slot near the top even when the
 * whole text favours another intent. The explanation kept is that of the list where the tool stood best.
 */
export function mergeClauseRankings(whole: readonly FusedCandidate[], clauses: readonly (readonly FusedCandidate[])[], options: ClauseMergeOptions = DEFAULT_CLAUSE_MERGE): RankedCandidate[] {
  const best = new Map<string, { candidate: FusedCandidate; value: number; order: number }>();
  let order = 0;
  const consider = (list: readonly FusedCandidate[], weight: number, penalty: number) => {
    const standingIn = standings(list);
    list.forEach((candidate, position) => {
      const standing = standingIn(candidate);
      if (standing === undefined) return;
      const value = weight * standing - penalty * position;
      const seen = best.get(candidate.id);
      if (!seen || value > seen.value) best.set(candidate.id, { candidate, value, order: seen?.order ?? order++ });
    });
  };
  consider(whole, 1, 0);
  for (const clause of clauses) consider(clause, options.clauseWeight, options.positionPenalty);
  const merged: RankedCandidate[] = [...best.values()].sort((a, b) => b.value - a.value || a.order - b.order).map((entry) => ({ ...entry.candidate, ranking: entry.value }));
  const included = new Set(merged.map((c) => c.id));
  for (const list of [whole, ...clauses])
    for (const candidate of list) {
      if (included.has(candidate.id)) continue;
      included.add(candidate.id);
      merged.push(candidate);
    }
  return merged;
}
