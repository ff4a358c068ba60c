import { trace } from '@opentelemetry/api';
import { splitIdentifiers } from '../documents/tokenizer';
import type { ToolDocument } from '../documents/tool-document';
import type { Embedder } from '../embedding/embedder.port';
import type { RankedHit, ToolIndex, ToolSearchFilter } from '../index/tool-index.port';
import { type FusedCandidate, reciprocalRankFusion } from './rank-fusion';

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
}

export const DEFAULT_FUNNEL: FunnelOptions = { recallK: 50, weights: { lexical: 1, semantic: 1 }, rrfK: 60, minSimilarity: 0.25 };

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

/**
 * The retrieval funnel: embeds and indexes tools; answers a query with lexical and semantic recall,
 * fused by reciprocal rank, cut to k, with each stage's rank and score kept as the explanation.
 */
export class ToolRetriever {
  constructor(
    readonly index: ToolIndex,
    /** Null: lexical retrieval only (no vectors are computed or stored). */
    readonly embedder: Embedder | null,
    private readonly options: FunnelOptions = DEFAULT_FUNNEL,
  ) {}

  /** Embeds each document (description and every example or usage query) and upserts it. */
  async indexTools(docs: ToolDocument[]): Promise<void> {
    if (!this.embedder)
      return this.index.upsert(
        docs.map((doc) => ({ doc, vectors: [] })),
        LEXICAL_ONLY,
      );
    const texts = docs.flatMap((doc) => [embeddingText(doc), ...doc.exampleQueries, ...doc.usageQueries]);
    const vectors = await this.embedder.embed(texts, 'document');
    let next = 0;
    const indexed = docs.map((doc) => {
      const count = 1 + doc.exampleQueries.length + doc.usageQueries.length;
      const own = vectors.slice(next, next + count);
      next += count;
      return { doc, vectors: own };
    });
    await this.index.upsert(indexed, this.embedder.model);
  }

  /** The vector space in use, `lexical-only` without an embedder. */
  get model(): string {
    return this.embedder?.model ?? LEXICAL_ONLY;
  }

  /** True when the stored vectors came from another model: everything must be re-embedded, never mixed. */
  async needsReindex(): Promise<boolean> {
    const stored = await this.index.embeddingModel();
    return stored !== null && stored !== this.model;
  }

  private async semantic(text: string, filter: ToolSearchFilter): Promise<RankedHit[]> {
    if (!this.embedder) return [];
    const [vector] = await this.embedder.embed([text], 'query');
    return this.index.semantic(vector, this.options.recallK, filter, this.embedder.model);
  }

  async search(text: string, k: number, filter: ToolSearchFilter): Promise<RetrievalResult> {
    return tracer.startActiveSpan('toolgate.retrieve.funnel', async (span) => {
      try {
        const [lexical, semantic] = await Promise.all([this.index.lexical(text, this.options.recallK, filter), this.semantic(text, filter)]);
        const fused = reciprocalRankFusion(lexical, semantic, this.options.weights, this.options.rrfK);
        const noMatch = lexical.length === 0 && (semantic[0]?.score ?? Number.NEGATIVE_INFINITY) < this.options.minSimilarity;
        span.setAttributes({ 'toolgate.lexical_hits': lexical.length, 'toolgate.semantic_hits': semantic.length, 'toolgate.no_match': noMatch });
        return { noMatch, hits: noMatch ? [] : fused.slice(0, k).map((c, i) => ({ ...c, rank: i + 1 })) };
      } finally {
        span.end();
      }
    });
  }
}
