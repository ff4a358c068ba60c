import { trace } from '@opentelemetry/api';
import { splitIdentifiers } from '../documents/text.tokenizer';
import type { ToolDocument } from '../documents/tool.document';
import type { Embedder } from '../embedding/embedder.port';
import type { RankedHit, ToolIndex, ToolSearchFilter } from '../index/tool-index.port';
import type { Reranker } from '../rerank/reranker.port';
import { type ClauseMergeOptions, DEFAULT_CLAUSE_MERGE, mergeClauseRankings } from './coverage.merger';
import { DEFAULT_DECOMPOSITION, type DecompositionOptions, decomposeQuery } from './query.decomposer';
import { type FusedCandidate, reciprocalRankFusion } from './rank.fusion';

export interface FunnelOptions {
  /** Candidates taken from each side before fusion. */
  recallK: number;
  weights: { lexical: number; semantic: number };
  rrfK: number;
  /**
   * No match when nothing matched lexically and the best cosine similarity is below this: the answer
   * is then "no tool fits" rather than the least bad tools.
   */
  minSimilarity: number;
  /** Fused candidates (per clause) the reranker reorders; the rest keep their fused order. */
  rerankDepth?: number;
  /**
   * Multi-part requests are split into clauses, each searched (both sides, fusion, rerank) on its own
   * and merged with the whole request's ranking so every intent gets a slot near the top; null
   * searches the text whole.
   */
  decomposition?: DecompositionOptions | null;
  /** How the clauses' rankings and the whole request's are merged. */
  clauseMerge?: ClauseMergeOptions;
}

export const DEFAULT_RERANK_DEPTH = 30;

export const DEFAULT_FUNNEL: FunnelOptions = {
  recallK: 50,
  weights: { lexical: 1, semantic: 1 },
  rrfK: 60,
  minSimilarity: 0.25,
  rerankDepth: DEFAULT_RERANK_DEPTH,
  decomposition: DEFAULT_DECOMPOSITION,
  clauseMerge: DEFAULT_CLAUSE_MERGE,
};

export interface RetrievedTool extends FusedCandidate {
  rank: number;
}

export interface RetrievalResult {
  hits: RetrievedTool[];
  noMatch: boolean;
}

const tracer = trace.getTracer('toolgate.retrieval');

/** The model name an index records when it holds no vectors. */
export const LEXICAL_ONLY = 'lexical-only';

/** The text that stands for a tool in vector space: what it is and does (the model truncates long text). */
export const embeddingText = (doc: ToolDocument): string =>
  [doc.title === doc.name ? splitIdentifiers(doc.name) : `${splitIdentifiers(doc.name)}: ${doc.title}`, doc.description, doc.tags.join(', ')].filter(Boolean).join('. ');

/** The document as one tenant may see it: its own learned queries, no other tenant's. */
function ownLearningOnly(doc: ToolDocument | undefined, tenant: string | undefined): ToolDocument | undefined {
  if (!doc?.learned) return doc;
  const { learned, ...shared } = doc;
  const own = tenant === undefined ? undefined : learned[tenant];
  return own ? { ...shared, learned: { [tenant as string]: own } } : shared;
}

/**
 * The retrieval funnel: embeds and indexes tools; answers a query with lexical and semantic recall,
 * fused by reciprocal rank, reranked, cut to k, with each stage's rank and score kept as the
 * explanation. A multi-part request also runs the funnel per clause, and the rankings are merged.
 * Every index driver gets the same fusion, rerank and merge: they live here, not in a driver.
 */
export class ToolRetriever {
  /** The documents this retriever indexed, for the reranker to read (the index keeps only what it searches). */
  private readonly documents = new Map<string, ToolDocument>();

  constructor(
    readonly index: ToolIndex,
    /** Null: lexical retrieval only (no vectors are computed or stored). */
    readonly embedder: Embedder | null,
    private readonly options: FunnelOptions = DEFAULT_FUNNEL,
    /** Null: the fused order is final. */
    readonly reranker: Reranker | null = null,
  ) {}

  /** Embeds each document (description, every example or usage query, each tenant's learned queries) and upserts it. */
  async indexTools(docs: ToolDocument[]): Promise<void> {
    for (const doc of docs) this.documents.set(doc.id, doc);
    if (!this.embedder)
      return this.index.upsert(
        docs.map((doc) => ({ doc, vectors: [] })),
        LEXICAL_ONLY,
      );
    const learned = (doc: ToolDocument) => Object.entries(doc.learned ?? {});
    const texts = docs.flatMap((doc) => [embeddingText(doc), ...doc.exampleQueries, ...doc.usageQueries, ...learned(doc).flatMap(([, queries]) => queries)]);
    const vectors = await this.embedder.embed(texts, 'document');
    let next = 0;
    const take = (count: number) => {
      next += count;
      return vectors.slice(next - count, next);
    };
    const indexed = docs.map((doc) => {
      const own = take(1 + doc.exampleQueries.length + doc.usageQueries.length);
      const byTenant = learned(doc);
      return byTenant.length === 0 ? { doc, vectors: own } : { doc, vectors: own, learnedVectors: Object.fromEntries(byTenant.map(([tenant, queries]) => [tenant, take(queries.length)])) };
    });
    await this.index.upsert(indexed, this.embedder.model);
  }

  /** The vector space in use, `lexical-only` without an embedder. */
  get model(): string {
    return this.embedder?.model ?? LEXICAL_ONLY;
  }

  /** True when multi-part queries are split into clauses. */
  get decomposes(): boolean {
    return Boolean(this.options.decomposition);
  }

  /** True when the stored vectors came from another model: everything must be re-embedded, never mixed. */
  async needsReindex(): Promise<boolean> {
    const stored = await this.index.embeddingModel();
    return stored !== null && stored !== this.model;
  }

  /** The semantic side for one text next to its lexical side, fused, the head reranked. */
  private async rankOne(text: string, lexical: RankedHit[], vector: Float32Array | undefined, filter: ToolSearchFilter, request: string) {
    const semantic = this.embedder && vector ? await this.index.semantic(vector, this.options.recallK, filter, this.embedder.model) : [];
    const fused = reciprocalRankFusion(lexical, semantic, this.options.weights, this.options.rrfK);
    if (!this.reranker || fused.length === 0) return { lexical, semantic, ranked: fused };
    const depth = this.options.rerankDepth ?? DEFAULT_RERANK_DEPTH;
    const head = await this.reranker.rerank(
      text,
      fused.slice(0, depth).map((candidate) => ({ candidate, doc: ownLearningOnly(this.documents.get(candidate.id), filter.tenant) })),
      request,
    );
    return { lexical, semantic, ranked: [...head, ...fused.slice(depth)] };
  }

  async search(text: string, k: number, filter: ToolSearchFilter): Promise<RetrievalResult> {
    return tracer.startActiveSpan('toolgate.retrieve.funnel', async (span) => {
      try {
        const clauses = this.options.decomposition ? decomposeQuery(text, this.options.decomposition) : [text];
        const texts = clauses.length > 1 ? [text, ...clauses] : [text];
        // The lexical side needs no vectors: it runs while the model embeds the query (in its worker
        // thread, or on the embeddings endpoint), not after.
        const [vectors, lexical] = await Promise.all([
          !this.embedder ? [] : clauses.length > 1 ? this.embedder.embedWithParts(text, clauses, 'query') : this.embedder.embed(texts, 'query'),
          Promise.all(texts.map((t) => this.index.lexical(t, this.options.recallK, filter))),
        ]);
        const [whole, ...parts] = await Promise.all(texts.map((t, i) => this.rankOne(t, lexical[i], vectors[i], filter, text)));
        const noMatch = whole.lexical.length === 0 && (whole.semantic[0]?.score ?? Number.NEGATIVE_INFINITY) < this.options.minSimilarity;
        const merged: FusedCandidate[] =
          parts.length === 0
            ? whole.ranked
            : mergeClauseRankings(
                whole.ranked,
                parts.map((part, index) => part.ranked.map((c) => ({ ...c, clause: { index, text: clauses[index] } }))),
                this.options.clauseMerge ?? DEFAULT_CLAUSE_MERGE,
              );
        span.setAttributes({
          'toolgate.lexical_hits': whole.lexical.length,
          'toolgate.semantic_hits': whole.semantic.length,
          'toolgate.clauses': clauses.length,
          'toolgate.reranker': this.reranker?.name ?? 'none',
          'toolgate.no_match': noMatch,
        });
        return { noMatch, hits: noMatch ? [] : merged.slice(0, k).map((c, i) => ({ ...c, rank: i + 1 })) };
      } finally {
        span.end();
      }
    });
  }
}
