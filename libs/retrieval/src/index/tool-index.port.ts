import type { Risk } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';

/** A principal's discover grants: a document matches when any clause's glob matches its id and its risk is allowed. */
export interface ToolSearchFilter {
  scope: { idGlob: string; maxRisk: Risk }[];
  categories?: string[];
  /**
   * The caller's tenant: its learned queries (`ToolDocument.learned`) count as part of each document,
   * no other tenant's do. Without it, only the platform-wide text counts.
   */
  tenant?: string;
}

/**
 * A document with its vectors: the first embeds the tool's description, the others its example and
 * usage queries (a query close to any of them is close to the tool).
 */
export interface IndexedTool {
  doc: ToolDocument;
  vectors: Float32Array[];
  /** Vectors of each tenant's learned queries (`doc.learned`), searched only for that tenant. */
  learnedVectors?: Record<string, Float32Array[]>;
}

/** One side's ranking of one tool. */
export interface RankedHit {
  id: string;
  version: string;
  rank: number;
  score: number;
  /** Query terms found in the document (lexical side). */
  matchedTerms?: string[];
}

/**
 * Port: where tool documents and their vectors live. A driver answers each side of the funnel
 * (lexical BM25, semantic kNN) with its filters applied inside; fusion and reranking are shared.
 */
export abstract class ToolIndex {
  abstract readonly driver: string;
  /** Insert or replace tools by id; `model` names the embedding model their vectors came from. */
  abstract upsert(tools: IndexedTool[], model: string): Promise<void>;
  abstract remove(ids: string[]): Promise<void>;
  /** Ids currently indexed. */
  abstract ids(): Promise<string[]>;
  /** The embedding model of the stored vectors; null when the index is empty. */
  abstract embeddingModel(): Promise<string | null>;
  /** BM25 over the tool document, best first, at most k, never a document the filter excludes. */
  abstract lexical(text: string, k: number, filter: ToolSearchFilter): Promise<RankedHit[]>;
  /** Nearest tools to the vector (best of each tool's vectors, cosine), best first, filtered. */
  abstract semantic(vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): Promise<RankedHit[]>;
  /** Throws when the index cannot serve searches. */
  abstract ping(): Promise<void>;
  /** Releases connections; the in-process driver has none. */
  async close(): Promise<void> {}
}
