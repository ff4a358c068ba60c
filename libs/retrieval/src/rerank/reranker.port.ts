import type { ToolDocument } from '../documents/tool.document';
import type { FusedCandidate } from '../funnel/rank.fusion';

/** A fused candidate with its tool document (absent when the index holds a tool this process never indexed). */
export interface RerankCandidate {
  candidate: FusedCandidate;
  doc?: ToolDocument;
}

/**
 * Port: reorders the top fused candidates for one query. It returns the same candidates, each with
 * `rerank` set (its score and rank, or why the fused order was kept), best first.
 */
export abstract class Reranker {
  abstract readonly name: string;
  /** `request`: the whole request when `query` is one clause of it (the same text otherwise). */
  abstract rerank(query: string, candidates: readonly RerankCandidate[], request?: string): Promise<FusedCandidate[]>;
}

/** Keeps the fused order and says why (a reranker that could not answer must never lose results). */
export const keepFusedOrder = (reranker: string, candidates: readonly RerankCandidate[], reason: string): FusedCandidate[] =>
  candidates.map(({ candidate }) => ({ ...candidate, rerank: { reranker, fallback: reason } }));
