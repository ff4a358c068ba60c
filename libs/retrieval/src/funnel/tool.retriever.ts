import { createHash } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { toolNameKey, withoutQuotedValues } from '../documents/quoted.extractor';
import { splitIdentifiers } from '../documents/text.tokenizer';
import type { ToolDocument } from '../documents/tool.document';
import { documentFilter } from '../embedded/tool.filter';
import { canRead, type Embedder } from '../embedding/embedder.port';
import type { IndexedTool, RankedHit, ToolIndex, ToolSearchFilter } from '../index/tool-index.port';
import type { Reranker } from '../rerank/reranker.port';
import { indexDocuments, indexVectorsPending, SearchStageTimer, searchesTotal } from '../telemetry/retrieval.instruments';
import { CompanionGraph, type CompanionOptions, DEFAULT_COMPANIONS, withCompanions } from './companion.expander';
import { type ClauseMergeOptions, DEFAULT_CLAUSE_MERGE, mergeClauseRankings, type RankedCandidate, standings } from './coverage.merger';
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
  /** Fused candidates (per clause) the reranker reorders; the rest keep their fused order (and carry the ranking score above them). */
  rerankDepth?: number;
  /**
   * Multi-part requests are split into clauses, each searched (both sides, fusion, rerank) on its own
   * and merged with the whole request's ranking so every intent gets a slot near the top; null
   * searches the text whole.
   */
  decomposition?: DecompositionOptions | null;
  /** How the clauses' rankings and the whole request's are merged. */
  clauseMerge?: ClauseMergeOptions;
  /** How the strongest candidates pull in the tools they are learned to be used with; null: never. */
  companions?: CompanionOptions | null;
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
  companions: DEFAULT_COMPANIONS,
};

export interface RetrievedTool extends FusedCandidate {
  rank: number;
  /**
   * The score the hits are sorted by: the rerank score (for a request split into clauses, the tool's
   * best standing over the request and its clauses), or the fused score relative to the best without a
   * reranker. A hit past the rerank depth (`rerankDepth`, beyond any usual k) has none of its own and
   * carries the one above it, so the hits stay sorted by it.
   */
  score: number;
  /** Set while vectors are still being computed: found by BM25 and the vectors there are, e.g. `vectors 12/22` (of the tools the caller may discover). */
  degraded?: string;
}

export interface RetrievalResult {
  hits: RetrievedTool[];
  noMatch: boolean;
  /** As on each hit: the search ran before every vector the caller may find was in. */
  degraded?: string;
}

/**
 * How searches behave while the index warms up. Until the first lexical pass, every search waits up
 * to `waitMs` and then answers INDEX_UNAVAILABLE. While vectors are still being computed, `degraded`
 * searches BM25 and the vectors there are and says so on each hit (an empty answer is not trusted:
 * it waits for the vectors like `wait`); `wait` holds the search up to `waitMs` for them.
 */
export interface WarmupPolicy {
  mode: 'degraded' | 'wait';
  waitMs: number;
}

export const DEFAULT_WARMUP: WarmupPolicy = { mode: 'degraded', waitMs: 15_000 };

/** Documents embedded and upserted together while indexing: the unit of progress a warming index reports. */
const VECTOR_BATCH_DOCS = 32;

const tracer = trace.getTracer('toolgate.retrieval');

/** A document's content and the vector space it went in with: equal means there is nothing to re-index. */
const fingerprint = (doc: ToolDocument, model: string): string => createHash('sha256').update(model).update('\n').update(JSON.stringify(doc)).digest('base64');

/** The model name an index records when it holds no vectors. */
export const LEXICAL_ONLY = 'lexical-only';

/** The text that stands for a tool in vector space: what it is and does (the model truncates long text). */
export const embeddingText = (doc: ToolDocument): string =>
  [doc.title === doc.name ? splitIdentifiers(doc.name) : `${splitIdentifiers(doc.name)}: ${doc.title}`, doc.description, doc.tags.join(', ')].filter(Boolean).join('. ');

const describeVectors = ({ vectors }: { vectors?: { ready: number; total: number } }): string => (vectors ? `vectors ${vectors.ready}/${vectors.total}` : 'vectors ready');

const notWarm = (message: string, policy: WarmupPolicy): ToolgateError => {
  const retryAfterSeconds = Math.max(1, Math.ceil(policy.waitMs / 3000));
  return new ToolgateError(ErrorCode.INDEX_UNAVAILABLE, `${message}: retry in ${retryAfterSeconds} s`, [], { retryAfterSeconds });
};

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
  /** The last indexing's documents: what a warming index counts its vectors against. */
  private indexing: ToolDocument[] = [];
  /** The last indexing's documents by id: the tools a companion may be. */
  private current = new Map<string, ToolDocument>();
  /** Their ids and names as `toolNameKey` reads them: a quoted one in a request names a tool, not a value to drop. */
  private toolNames = new Set<string>();
  /** Which of the last indexing's tools are used together, from the requests that led to them. */
  private companions = CompanionGraph.fromDocuments([]);
  /** Documents searchable by BM25 only until their vectors are in (new to the index during an indexing). */
  private readonly pendingVectors = new Set<string>();
  /** What each document was when this retriever last put it in with its vectors (or its words, without an embedder). */
  private readonly indexedAs = new Map<string, string>();
  /** True once an indexing has put every document in lexically. */
  private searchable = false;
  private readonly warmthListeners = new Set<() => void>();

  constructor(
    readonly index: ToolIndex,
    /** Null: lexical retrieval only (no vectors are computed or stored). */
    readonly embedder: Embedder | null,
    private readonly options: FunnelOptions = DEFAULT_FUNNEL,
    /** Null: the fused order is final. */
    readonly reranker: Reranker | null = null,
  ) {}

  /**
   * Embeds each document (description, every example or usage query, each tenant's learned queries) and
   * upserts it. Documents new to the index go in lexically first, so they are searchable at once, and
   * get their vectors in batches, theirs before the others' (`warmup` reports how far it is;
   * `onProgress` hears of each batch). A document this retriever already put in, unchanged since, is
   * left as it is: a sync after one tool learned one query re-embeds and re-indexes that tool only.
   */
  async indexTools(docs: ToolDocument[], onProgress?: (withVectors: number, total: number) => void): Promise<void> {
    for (const doc of docs) this.documents.set(doc.id, doc);
    this.indexing = docs;
    this.current = new Map(docs.map((doc) => [doc.id, doc]));
    this.toolNames = new Set(docs.flatMap((doc) => [toolNameKey(doc.id), toolNameKey(doc.name)]));
    const companions = this.companionOptions;
    if (companions) this.companions = CompanionGraph.fromDocuments(docs, companions);
    const wanted = new Set(docs.map((doc) => doc.id));
    for (const id of this.pendingVectors) if (!wanted.has(id)) this.pendingVectors.delete(id);
    for (const id of this.indexedAs.keys()) if (!wanted.has(id)) this.indexedAs.delete(id);
    const { embedder } = this;
    const present = new Set(await this.index.ids());
    const fingerprints = new Map(docs.map((doc) => [doc.id, fingerprint(doc, this.model)]));
    const changed = docs.filter((doc) => !present.has(doc.id) || this.indexedAs.get(doc.id) !== fingerprints.get(doc.id));
    const done = (batch: ToolDocument[]) => {
      for (const doc of batch) this.indexedAs.set(doc.id, fingerprints.get(doc.id) as string);
    };
    // Without an embedder every document is lexical-only, so every changed one goes in by its words alone.
    const fresh = embedder ? changed.filter((doc) => !present.has(doc.id)) : changed;
    if (fresh.length > 0) {
      await this.index.upsert(
        fresh.map((doc) => ({ doc, vectors: [] })),
        this.model,
      );
    }
    this.warmed(() => {
      this.searchable = true;
      if (embedder) for (const doc of fresh) this.pendingVectors.add(doc.id);
    });
    if (!embedder) return done(fresh);
    const ordered = [...fresh, ...changed.filter((doc) => present.has(doc.id))];
    for (let start = 0; start < ordered.length; start += VECTOR_BATCH_DOCS) {
      const batch = ordered.slice(start, start + VECTOR_BATCH_DOCS);
      await this.index.upsert(await this.withVectors(batch, embedder), embedder.model);
      done(batch);
      this.warmed(() => {
        for (const doc of batch) this.pendingVectors.delete(doc.id);
      });
      onProgress?.(Math.min(start + VECTOR_BATCH_DOCS, ordered.length), ordered.length);
    }
  }

  private async withVectors(docs: ToolDocument[], embedder: Embedder): Promise<IndexedTool[]> {
    const learned = (doc: ToolDocument) => Object.entries(doc.learned ?? {});
    // A past query is embedded as a request is searched: without the quoted values it introduces.
    const texts = docs.flatMap((doc) => [
      embeddingText(doc),
      ...[...doc.exampleQueries, ...doc.usageQueries, ...learned(doc).flatMap(([, queries]) => queries)].map((query) => withoutQuotedValues(query)),
    ]);
    const vectors = await embedder.embed(texts, 'document');
    let next = 0;
    const take = (count: number) => {
      next += count;
      return vectors.slice(next - count, next);
    };
    return docs.map((doc) => {
      const own = take(1 + doc.exampleQueries.length + doc.usageQueries.length);
      const byTenant = learned(doc);
      return byTenant.length === 0 ? { doc, vectors: own } : { doc, vectors: own, learnedVectors: Object.fromEntries(byTenant.map(([tenant, queries]) => [tenant, take(queries.length)])) };
    });
  }

  private warmed(change: () => void): void {
    change();
    indexDocuments.set({ driver: this.index.driver }, this.indexing.length);
    indexVectorsPending.set({ driver: this.index.driver }, this.pendingVectors.size);
    for (const listener of this.warmthListeners) listener();
  }

  /**
   * How warm the index is for a caller: `searchable` once every document is in lexically; `vectors`
   * while some the filter lets the caller find still lack theirs (counted among those only, so a
   * caller learns nothing of tools it may not discover).
   */
  warmup(filter: ToolSearchFilter): { searchable: boolean; vectors?: { ready: number; total: number } } {
    if (this.pendingVectors.size === 0) return { searchable: this.searchable };
    const visible = documentFilter(filter);
    let total = 0;
    let pending = 0;
    for (const doc of this.indexing) {
      if (!visible(doc)) continue;
      total += 1;
      if (this.pendingVectors.has(doc.id)) pending += 1;
    }
    return pending === 0 ? { searchable: this.searchable } : { searchable: this.searchable, vectors: { ready: total - pending, total } };
  }

  /** Resolves true as soon as `warm` holds, false when `waitMs` passes first. */
  private async until(warm: () => boolean, waitMs: number): Promise<boolean> {
    if (warm()) return true;
    return new Promise<boolean>((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.warmthListeners.delete(check);
        resolve(result);
      };
      const check = () => {
        if (warm()) done(true);
      };
      const timer = setTimeout(() => done(warm()), waitMs);
      this.warmthListeners.add(check);
    });
  }

  /**
   * `search` for a server's callers: never an empty answer that only means "not ready yet" (see
   * `WarmupPolicy`); INDEX_UNAVAILABLE with a retry hint when the index is not warm within the bound.
   */
  async searchWhenWarm(text: string, k: number, filter: ToolSearchFilter, policy: WarmupPolicy = DEFAULT_WARMUP): Promise<RetrievalResult> {
    const vectorsIn = () => this.warmup(filter).vectors === undefined;
    if (!(await this.until(() => this.searchable, policy.waitMs))) throw notWarm('the tool index is still loading', policy);
    if (policy.mode === 'wait' && !(await this.until(vectorsIn, policy.waitMs))) throw notWarm(`the tool index is still computing vectors (${describeVectors(this.warmup(filter))})`, policy);
    const result = await this.search(text, k, filter);
    if (result.hits.length > 0 || !result.degraded) return result;
    // Nothing found while vectors are missing is not "no tool fits": wait for them, then answer.
    if (await this.until(vectorsIn, policy.waitMs)) return this.search(text, k, filter);
    throw notWarm(`no tool matched by words, and the tool index is still computing vectors (${describeVectors(this.warmup(filter))})`, policy);
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
  private async rankOne(text: string, lexical: RankedHit[], vector: Float32Array | undefined, filter: ToolSearchFilter, request: string, stages: SearchStageTimer) {
    const embedder = this.embedder;
    const semantic = embedder && vector ? await stages.time('semantic', () => this.index.semantic(vector, this.options.recallK, filter, embedder.model)) : [];
    const fused = stages.timeSync('fusion', () => reciprocalRankFusion(lexical, semantic, this.options.weights, this.options.rrfK));
    const reranker = this.reranker;
    if (!reranker || fused.length === 0) return { lexical, semantic, ranked: fused };
    const depth = this.options.rerankDepth ?? DEFAULT_RERANK_DEPTH;
    const head = await stages.time('rerank', () =>
      reranker.rerank(
        text,
        fused.slice(0, depth).map((candidate) => ({ candidate, doc: ownLearningOnly(this.documents.get(candidate.id), filter.tenant) })),
        request,
      ),
    );
    return { lexical, semantic, ranked: [...head, ...fused.slice(depth)] };
  }

  private get companionOptions(): CompanionOptions | null {
    return this.options.companions === undefined ? DEFAULT_COMPANIONS : this.options.companions;
  }

  /** A companion the search did not find, when it is in the index and the caller may discover it. */
  private companionCandidate(id: string, visible: (doc: ToolDocument) => boolean): RankedCandidate | undefined {
    const doc = this.current.get(id);
    return doc && visible(doc) ? { id, version: doc.version, fused: 0 } : undefined;
  }

  async search(request: string, k: number, filter: ToolSearchFilter): Promise<RetrievalResult> {
    return tracer.startActiveSpan('toolgate.retrieve.funnel', async (span) => {
      const stages = new SearchStageTimer();
      try {
        const text = withoutQuotedValues(request, this.toolNames);
        const clauses = this.options.decomposition ? decomposeQuery(text, this.options.decomposition) : [text];
        const texts = clauses.length > 1 ? [text, ...clauses] : [text];
        // The lexical side needs no vectors: it runs while the model embeds the query (in its worker
        // thread, or on the embeddings endpoint), not after. A model that cannot read the request's
        // script would only add noise: the request is then searched by its words alone.
        const embedder = this.embedder && canRead(this.embedder, text) ? this.embedder : null;
        const [vectors, lexical] = await Promise.all([
          !embedder ? [] : stages.time('embedding', () => (clauses.length > 1 ? embedder.embedWithParts(text, clauses, 'query') : embedder.embed(texts, 'query'))),
          stages.time('lexical', () => Promise.all(texts.map((t) => this.index.lexical(t, this.options.recallK, filter)))),
        ]);
        const [whole, ...parts] = await Promise.all(texts.map((t, i) => this.rankOne(t, lexical[i], vectors[i], filter, text, stages)));
        const noMatch = whole.lexical.length === 0 && (whole.semantic[0]?.score ?? Number.NEGATIVE_INFINITY) < this.options.minSimilarity;
        const merged: RankedCandidate[] =
          parts.length === 0
            ? whole.ranked
            : mergeClauseRankings(
                whole.ranked,
                parts.map((part, index) => part.ranked.map((c) => ({ ...c, clause: { index, text: clauses[index] } }))),
                this.options.clauseMerge ?? DEFAULT_CLAUSE_MERGE,
              );
        // A whole request's list is already in order: its standings are the values it is sorted by.
        const merit = parts.length === 0 ? standings(whole.ranked) : (c: RankedCandidate) => c.ranking;
        const companions = this.companionOptions;
        const visible = companions && !this.companions.empty ? documentFilter(filter) : undefined;
        const ranked = !companions || !visible ? merged : withCompanions(merged, merit, this.companions, filter.tenant, (id) => this.companionCandidate(id, visible), companions);
        const rankingOf = (c: RankedCandidate) => c.ranking ?? merit(c);
        span.setAttributes({
          'toolgate.lexical_hits': whole.lexical.length,
          'toolgate.semantic_hits': whole.semantic.length,
          'toolgate.clauses': clauses.length,
          'toolgate.reranker': this.reranker?.name ?? 'none',
          'toolgate.semantic_skipped': this.embedder !== null && embedder === null,
          'toolgate.no_match': noMatch,
        });
        const warmth = this.warmup(filter);
        const degraded = warmth.vectors ? describeVectors(warmth) : undefined;
        if (degraded) span.setAttribute('toolgate.degraded', degraded);
        let carried = 0;
        const hits = noMatch
          ? []
          : ranked.slice(0, k).map((candidate, i) => {
              carried = rankingOf(candidate) ?? carried;
              const { ranking: _, ...hit } = candidate;
              return { ...hit, rank: i + 1, score: carried, ...(degraded ? { degraded } : {}) };
            });
        stages.record(this.index.driver);
        searchesTotal.inc({ driver: this.index.driver, outcome: degraded ? 'degraded' : hits.length === 0 ? 'no_match' : 'hits' });
        return { noMatch, hits, ...(degraded ? { degraded } : {}) };
      } finally {
        span.end();
      }
    });
  }
}
