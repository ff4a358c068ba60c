import { randomBytes } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import { ErrorCode, RISK_ORDER, ToolgateError } from '@toolgate/sdk';
import { hasCjk, tokenize } from '../documents/text.tokenizer';
import { LEARNED_WEIGHT, type ToolDocument, weightedFields } from '../documents/tool.document';
import { type IndexedTool, type RankedHit, ToolIndex, type ToolSearchFilter } from '../index/tool-index.port';
import { globToRegexp } from './glob-to-regexp.util';

/** Required when an Elasticsearch index is made: the client (~30 MB resident) is not loaded by processes that never use one. */
const elasticsearch = () => require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');

export interface ElasticsearchToolIndexOptions {
  node: string;
  /** The alias searches go through; concrete indices are `<prefix>-<timestamp>-<random>`. */
  indexPrefix?: string;
  requestTimeoutMs?: number;
  /** A preconfigured client (auth, TLS, several nodes); `node` then only names it in errors. */
  client?: Client;
}

/** Where this driver's index stands: the concrete index behind the alias and its vector space. */
interface IndexState {
  index: string;
  model: string | null;
  dims: number | null;
  schema: number;
}

interface IndexMeta {
  embeddingModel?: string;
  dimensions?: number;
  schema?: number;
}

/** The mapping's version: an index of an older one is rebuilt (2: per-tenant learned text and vectors; 3: no per-tool bound on nested vectors). */
const SCHEMA = 3;

/** The BM25 parameters of the embedded driver, so both rank alike. */
const K1 = 1.2;
const B = 0.75;
/**
 * Field weights become repetitions of the field's terms in one `text` field: weights are multiples of
 * 0.5, so each term is written `weight * TF_SCALE` times. With k1 scaled by the same factor, Lucene's
 * BM25 over that field equals the embedded driver's weighted BM25 (same tf, length and idf), up to
 * Lucene's one-byte length norms; separate fields under `most_fields` would normalize each field's
 * length and idf apart and rank differently.
 */
const TF_SCALE = 2;
/** Elasticsearch 8 keeps the legacy `(k1 + 1)` factor: scaled back, scores are the embedded driver's. */
const BM25_TO_EMBEDDED = (K1 + 1) / (K1 * TF_SCALE + 1);
const MAX_WINDOW = 10_000;
const KNN_MIN_CANDIDATES = 500;
const KNN_CANDIDATES_PER_HIT = 10;
/** A 10k-character query must stay under Elasticsearch's boolean clause limit. */
const MAX_QUERY_TERMS = 1_000;
const BULK_TOOLS = 500;
const BULK_VECTORS = 2_000;
const PING_TIMEOUT_MS = 2_000;
/** Ties broken by id, as in the embedded driver, so equal scores rank the same on both. */
const BEST_FIRST: estypes.Sort = [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }];

const ANALYZER = 'tool_text';

/**
 * The Elasticsearch driver. One document per tool: its weighted text (BM25), a nested list of its
 * vectors (description, example and usage queries) searched with nested kNN (a tool scores by its
 * best vector), keyword fields for filters, and the whole ToolDocument kept unindexed. Filters run
 * inside both the BM25 query and the kNN `filter`. The alias `<prefix>` points at one concrete index
 * whose mapping `_meta` records the embedding model; a new vector space gets a new index, filled
 * before the alias moves atomically. One writer at a time is assumed (the gateway that indexes);
 * concurrent swaps are detected, not merged. What a tenant's runs taught lives in that tenant's own
 * text field (`learned.<tenant>`, searched with the shared text as one BM25F field for that tenant
 * only) and in nested vectors tagged with the tenant (scored exactly, for that tenant only).
 */
export class ElasticsearchToolIndex extends ToolIndex {
  readonly driver = 'elasticsearch';
  private readonly client: Client;
  private readonly alias: string;
  /** `node` without credentials, for error messages. */
  private readonly where: string;
  /** Last known state, for the semantic side only: checking the model must not cost a round trip per query. */
  private known: IndexState | null = null;

  constructor(options: ElasticsearchToolIndexOptions) {
    super();
    this.alias = options.indexPrefix ?? 'toolgate-tools';
    this.where = redact(options.node);
    this.client = options.client ?? new (elasticsearch().Client)({ node: options.node, requestTimeout: options.requestTimeoutMs ?? 10_000, maxRetries: 1 });
  }

  async upsert(tools: IndexedTool[], model: string): Promise<void> {
    if (tools.length === 0) return;
    const dims = dimensionsOf(tools);
    const current = await this.state();
    if (current && current.schema === SCHEMA && current.model === model && (dims === null || current.dims === dims)) {
      await this.write(current.index, tools, model);
      this.known = current;
      return;
    }
    // Another vector space: never mix it into the current index. The tools not re-sent keep their text
    // (they stay findable by BM25) but lose their vectors until they are indexed with this model.
    await this.replaceIndex(current, model, dims, async (next) => {
      if (current) await this.copyWithoutVectors(current.index, next, new Set(tools.map((t) => t.doc.id)), model);
      await this.write(next, tools, model);
    });
  }

  /** Builds a fresh index holding exactly `tools`, then swaps the alias to it atomically and deletes the old one. */
  async reindex(tools: IndexedTool[], model: string): Promise<void> {
    const current = await this.state();
    await this.replaceIndex(current, model, dimensionsOf(tools), (next) => this.write(next, tools, model));
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0 || !(await this.state())) return;
    for (let start = 0; start < ids.length; start += BULK_TOOLS) {
      const chunk = ids.slice(start, start + BULK_TOOLS);
      await this.bulk(
        chunk.map((id) => ({ delete: { _index: this.alias, _id: id } })),
        start + BULK_TOOLS >= ids.length,
      );
    }
  }

  async ids(): Promise<string[]> {
    const ids: string[] = [];
    let after: estypes.SortResults | undefined;
    for (;;) {
      const response = await this.call('list ids', () =>
        this.client.search({
          index: this.alias,
          ignore_unavailable: true,
          allow_no_indices: true,
          size: MAX_WINDOW,
          _source: false,
          track_total_hits: false,
          sort: [{ id: 'asc' }],
          search_after: after,
        }),
      );
      const hits = response.hits.hits;
      for (const hit of hits) ids.push(hit._id as string);
      if (hits.length < MAX_WINDOW) return ids;
      after = hits[hits.length - 1].sort;
    }
  }

  async embeddingModel(): Promise<string | null> {
    const state = await this.state();
    if (!state) return null;
    const { count } = await this.call('count documents', () => this.client.count({ index: state.index }));
    return count === 0 ? null : state.model;
  }

  /**
   * The search request `lexical` sends, or null when it sends none (no terms, k = 0). Public so the
   * benchmark can send the very same body through the raw client and compare round trips.
   */
  lexicalRequest(text: string, k: number, filter: ToolSearchFilter): { request: estypes.SearchRequest; terms: string[] } | null {
    const size = window(k);
    const terms = [...new Set(tokenize(text))].slice(0, MAX_QUERY_TERMS);
    if (size === 0 || terms.length === 0) return null;
    const fields = filter.tenant === undefined ? null : ['text', learnedField('learned', filter.tenant)];
    return {
      terms,
      request: {
        ...this.searchBase(size),
        query: {
          bool: {
            // One named clause per term: the same BM25 sum as a `match`, and each hit says which terms it holds.
            // For a tenant, its learned text and the shared text score as one field (BM25F), as the embedded driver does.
            should: terms.map((term) => (fields ? { combined_fields: { query: indexTerm(term), fields, _name: term } } : { match: { text: { query: indexTerm(term), _name: term } } })),
            minimum_should_match: 1,
            filter: [filterQuery(filter)],
          },
        },
      },
    };
  }

  /** The search request `semantic` sends (see `lexicalRequest`). */
  semanticRequest(vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): estypes.SearchRequest {
    const size = window(k);
    return {
      ...this.searchBase(size),
      knn: {
        field: 'vectors.vector',
        query_vector: Array.from(vector),
        k: size,
        // HNSW is approximate: a wide candidate list keeps its top k close to the exact kNN of the
        // embedded driver (the benchmark's agreement figure), and tools with several vectors take
        // several candidates each before ES keeps one per tool.
        num_candidates: Math.min(MAX_WINDOW, Math.max(KNN_MIN_CANDIDATES, KNN_CANDIDATES_PER_HIT * size)),
        // The model term also guards against another writer having switched the space since `known`.
        filter: [filterQuery(filter), { term: { model } }],
      },
    };
  }

  private searchBase(size: number) {
    return { index: this.alias, ignore_unavailable: true, allow_no_indices: true, size, _source: ['version'], track_total_hits: false, track_scores: true, sort: BEST_FIRST };
  }

  async lexical(text: string, k: number, filter: ToolSearchFilter): Promise<RankedHit[]> {
    const built = this.lexicalRequest(text, k, filter);
    if (!built) return [];
    const { request, terms } = built;
    const response = await this.call('lexical search', () => this.client.search<{ version: string }>(request));
    return response.hits.hits.map((hit, i) => {
      const named = hit.matched_queries;
      const matched = new Set(Array.isArray(named) ? named : Object.keys(named ?? {}));
      return {
        id: hit._id as string,
        version: (hit._source as { version: string }).version,
        rank: i + 1,
        score: (hit._score ?? 0) * BM25_TO_EMBEDDED,
        matchedTerms: terms.filter((t) => matched.has(t)),
      };
    });
  }

  /** The search for a tenant's learned vectors (see `lexicalRequest`): that tenant's own vector field, nothing when it has none. */
  learnedRequest(vector: Float32Array, k: number, filter: ToolSearchFilter & { tenant: string }, model: string): estypes.SearchRequest {
    const request = this.semanticRequest(vector, k, filter, model);
    return { ...request, knn: { ...(request.knn as estypes.KnnSearch), field: `${learnedField('learned_vectors', filter.tenant)}.vector` } };
  }

  async semantic(vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): Promise<RankedHit[]> {
    const size = window(k);
    if (size === 0) return [];
    let state = this.known ?? (await this.state());
    this.known = state;
    if (!sameSpace(state, model, vector)) return [];
    type Hits = estypes.SearchHit<{ version: string }>[];
    const search = async (): Promise<[Hits, Hits]> => {
      const { tenant } = filter;
      const [shared, learned] = await Promise.all([
        this.call('semantic search', () => this.client.search<{ version: string }>(this.semanticRequest(vector, k, filter, model))),
        tenant === undefined ? null : this.call('learned semantic search', () => this.client.search<{ version: string }>(this.learnedRequest(vector, k, { ...filter, tenant }, model))),
      ]);
      return [shared.hits.hits, learned?.hits.hits ?? []];
    };
    let hits: [Hits, Hits];
    try {
      hits = await search();
    } catch (error) {
      // Rejected (e.g. other dimensions): the index may have moved to another space under us.
      if (!ToolgateError.is(error, ErrorCode.INTERNAL)) throw error;
      state = this.known = await this.state();
      if (!sameSpace(state, model, vector)) return [];
      throw error;
    }
    // Elasticsearch scores cosine kNN as (1 + cos) / 2: report the cosine, as the embedded driver does. A tool's score is its best vector's, shared or learned.
    const best = new Map<string, { version: string; score: number }>();
    const offer = (hit: Hits[number], score: number) => {
      const known = best.get(hit._id as string);
      if (!known || score > known.score) best.set(hit._id as string, { version: (hit._source as { version: string }).version, score });
    };
    for (const hit of [...hits[0], ...hits[1]]) offer(hit, 2 * (hit._score ?? 0) - 1);
    return [...best]
      .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, size)
      .map(([id, { version, score }], i) => ({ id, version, rank: i + 1, score }));
  }

  async ping(): Promise<void> {
    await this.call('cluster health', () => this.client.cluster.health({}, { requestTimeout: PING_TIMEOUT_MS, maxRetries: 0 }));
  }

  /** Closes the client's connections. */
  override async close(): Promise<void> {
    await this.client.close();
  }

  /** The concrete index behind the alias and its recorded vector space; null when there is none. */
  private async state(): Promise<IndexState | null> {
    const mappings = await this.call('read the index mapping', () => this.client.indices.getMapping({ index: this.alias }), null);
    const [entry] = Object.entries(mappings ?? {});
    if (!entry) return null;
    const [index, { mappings: mapping }] = entry;
    const meta = (mapping._meta ?? {}) as IndexMeta;
    return { index, model: meta.embeddingModel ?? null, dims: meta.dimensions ?? null, schema: meta.schema ?? 1 };
  }

  /** Creates a new concrete index, fills it, then points the alias at it and deletes the previous one. */
  private async replaceIndex(current: IndexState | null, model: string, dims: number | null, fill: (index: string) => Promise<void>): Promise<void> {
    const next = `${this.alias}-${Date.now()}-${randomBytes(3).toString('hex')}`;
    await this.call('create an index', () => this.client.indices.create({ index: next, settings: SETTINGS, mappings: mappingFor(model, dims) }));
    try {
      await fill(next);
      await this.call('swap the alias', () =>
        this.client.indices.updateAliases({
          actions: [
            // must_exist: if another writer already moved the alias, the whole swap fails instead of pointing it at two indices.
            ...(current ? [{ remove: { index: current.index, alias: this.alias, must_exist: true } }] : []),
            { add: { index: next, alias: this.alias } },
          ],
        }),
      );
    } catch (error) {
      await this.client.indices.delete({ index: next }).catch(() => undefined);
      throw error;
    }
    this.known = { index: next, model, dims, schema: SCHEMA };
    // Searches resolved against the old index before the swap may still be running: delete it after.
    if (current) await this.call('delete the previous index', () => this.client.indices.delete({ index: current.index, ignore_unavailable: true }));
  }

  private async write(index: string, tools: IndexedTool[], model: string): Promise<void> {
    let chunk: IndexedTool[] = [];
    let vectors = 0;
    const flush = async (last: boolean) => {
      await this.bulk(
        chunk.flatMap((tool) => [{ index: { _index: index, _id: tool.doc.id } }, source(tool, model)]),
        last,
      );
      chunk = [];
      vectors = 0;
    };
    for (const [i, tool] of tools.entries()) {
      chunk.push(tool);
      vectors += tool.vectors.length;
      if (chunk.length >= BULK_TOOLS || vectors >= BULK_VECTORS || i === tools.length - 1) await flush(i === tools.length - 1);
    }
  }

  /** Copies documents other than `skip` into another index, text only. */
  private async copyWithoutVectors(from: string, to: string, skip: Set<string>, model: string): Promise<void> {
    let after: estypes.SortResults | undefined;
    for (;;) {
      const response = await this.call('read documents to copy', () =>
        this.client.search<{ doc: ToolDocument }>({ index: from, size: BULK_TOOLS, _source: ['doc'], track_total_hits: false, sort: [{ id: 'asc' }], search_after: after }),
      );
      const hits = response.hits.hits;
      const kept = hits.map((hit) => (hit._source as { doc: ToolDocument }).doc).filter((doc) => !skip.has(doc.id));
      if (kept.length > 0)
        await this.write(
          to,
          kept.map((doc) => ({ doc, vectors: [] })),
          model,
        );
      if (hits.length < BULK_TOOLS) return;
      after = hits[hits.length - 1].sort;
    }
  }

  /** One bulk request; the last of a series waits for a refresh so a search right after sees every write. */
  private async bulk(operations: estypes.BulkRequest['operations'], last: boolean): Promise<void> {
    const response = await this.call('bulk write', () => this.client.bulk({ operations, refresh: last ? 'wait_for' : false }));
    if (!response.errors) return;
    const failed = response.items
      .map((item) => Object.values(item)[0] as estypes.BulkResponseItem)
      // Deleting a tool that is not there is not a failure.
      .filter((item) => item.error && !(item.status === 404 && item.error.type !== 'index_not_found_exception'));
    if (failed.length === 0) return;
    const details = failed.map((item) => ({ path: String(item._id), message: `${item.error?.type}: ${item.error?.reason}` }));
    const overloaded = failed.some((item) => item.status === 429 || item.status >= 500);
    throw new ToolgateError(
      overloaded ? ErrorCode.INDEX_UNAVAILABLE : ErrorCode.INTERNAL,
      `Elasticsearch at ${this.where} failed to write ${failed.length} tool document(s): ${details[0].message}`,
      details,
    );
  }

  /**
   * Runs a request; connection failures, timeouts, 429 and 5xx become INDEX_UNAVAILABLE, other rejections
   * INTERNAL. A 404 gives `notFound` when one is given. Nothing is cached from a failure: the next call
   * tries again, so the driver recovers on its own when Elasticsearch returns.
   */
  private async call<T, F = never>(what: string, request: () => Promise<T>, ...notFound: [F] | []): Promise<T | F> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof elasticsearch().errors.ResponseError && error.statusCode === 404 && notFound.length > 0) return notFound[0] as F;
      if (unavailable(error)) {
        throw new ToolgateError(ErrorCode.INDEX_UNAVAILABLE, `Elasticsearch at ${this.where} is unavailable: ${causeOf(error)}`, [], { cause: error });
      }
      throw new ToolgateError(ErrorCode.INTERNAL, `Elasticsearch at ${this.where} rejected ${what}: ${causeOf(error)}`, [], { cause: error });
    }
  }
}

const SETTINGS: estypes.IndicesIndexSettings = {
  // One shard: tool catalogs are small, and BM25 statistics then cover the whole catalog as in the embedded driver.
  number_of_shards: 1,
  auto_expand_replicas: '0-1',
  analysis: {
    analyzer: { [ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'tool_stop'] } },
    filter: { tool_stop: { type: 'stop', stopwords: '_english_' } },
  },
  // The index's default similarity, not a per-field one: combined_fields (a tenant's learned text with the shared text) refuses per-field similarities.
  similarity: { default: { type: 'BM25', k1: K1 * TF_SCALE, b: B } },
  // A tool's vectors are one nested object each (description, examples, every usage query of every
  // tenant); the catalog bounds usage examples per scope, not per tool, so one much-used tool may hold
  // far more than Elasticsearch's default of 10,000.
  mapping: { nested_objects: { limit: 10_000_000 } },
};

function mappingFor(model: string, dims: number | null): estypes.MappingTypeMapping {
  const vector: estypes.MappingProperty = {
    type: 'dense_vector',
    dims: dims ?? undefined,
    similarity: 'cosine',
    index: true,
    index_options: { type: 'hnsw', m: 16, ef_construction: 100 },
  };
  const textField = { type: 'text', analyzer: ANALYZER, index_options: 'freqs' } as const;
  return {
    dynamic: 'strict',
    _meta: dims === null ? { embeddingModel: model, schema: SCHEMA } : { embeddingModel: model, dimensions: dims, schema: SCHEMA },
    // One text field and one vector field per tenant that taught something, made on first use.
    dynamic_templates: [
      { learned_text: { path_match: 'learned.*', mapping: textField } },
      ...(dims === null ? [] : [{ learned_vectors: { path_match: 'learned_vectors.*', match_mapping_type: 'object' as const, mapping: { type: 'nested' as const, properties: { vector } } } }]),
    ],
    // The text is derived from `doc`, the vectors are large: neither needs to be returned or stored twice.
    _source: { excludes: ['text', 'vectors', 'learned', 'learned_vectors'] },
    properties: {
      id: { type: 'keyword' },
      version: { type: 'keyword' },
      risk: { type: 'keyword' },
      risk_rank: { type: 'byte' },
      category: { type: 'keyword' },
      model: { type: 'keyword' },
      text: textField,
      learned: { type: 'object', dynamic: true },
      doc: { type: 'object', enabled: false },
      vectors: { type: 'nested', properties: dims === null ? {} : { vector } },
      learned_vectors: { type: 'object', dynamic: true },
    },
  };
}

/** A tenant's field under `learned` or `learned_vectors`; hex, since a tenant name may hold dots (object paths in a mapping). */
const learnedKey = (tenant: string) => `t${Buffer.from(tenant, 'utf8').toString('hex')}`;
const learnedField = (parent: 'learned' | 'learned_vectors', tenant: string) => `${parent}.${learnedKey(tenant)}`;

function source({ doc, vectors, learnedVectors }: IndexedTool, model: string) {
  const learned = Object.entries(doc.learned ?? {});
  const nonZero = (v: Float32Array) => v.some((x) => x !== 0);
  return {
    id: doc.id,
    version: doc.version,
    risk: doc.risk,
    risk_rank: RISK_ORDER.indexOf(doc.risk),
    category: doc.category,
    model,
    text: weightedText(doc),
    doc,
    // Elasticsearch rejects zero vectors under cosine; such a vector (text with no words) is close to nothing anyway.
    vectors: vectors.filter(nonZero).map((v) => ({ vector: Array.from(v) })),
    learned: Object.fromEntries(learned.map(([tenant, queries]) => [learnedKey(tenant), repeated(queries.join(' '), LEARNED_WEIGHT)])),
    learned_vectors: Object.fromEntries(
      Object.entries(learnedVectors ?? {})
        .map(([tenant, rows]) => [learnedKey(tenant), rows.filter(nonZero).map((v) => ({ vector: Array.from(v) }))] as const)
        .filter(([, rows]) => rows.length > 0),
    ),
  };
}

/**
 * A term as the index stores it. The standard tokenizer (this distribution has no whitespace or CJK
 * bigram analysis) would cut a CJK bigram into single characters, so such a term is written as its code
 * points ("换算" -> "cjk6362x7b97"), one token to it: both drivers then score the same bigrams.
 */
export function indexTerm(term: string): string {
  if (!hasCjk(term)) return term;
  return `cjk${[...term].map((char) => (char.codePointAt(0) as number).toString(16)).join('x')}`;
}

/** The text's terms as the shared tokenizer makes them, repeated by the field's weight (see `weightedText`). */
function repeated(text: string, weight: number): string {
  const repeat = weight * TF_SCALE;
  if (!Number.isInteger(repeat)) throw new Error(`field weight ${weight} is not a multiple of 1/${TF_SCALE}`);
  const terms = tokenize(text).map(indexTerm).join(' ');
  return terms ? Array.from({ length: repeat }, () => terms).join(' ') : '';
}

/**
 * The document's terms as the shared tokenizer makes them, each field's repeated by its weight. The
 * index analyzer (standard, lowercase, english stop) then sees only these terms: this distribution has
 * no stemmer, and the tokenizer's plural folding must hold on both drivers.
 */
function weightedText(doc: ToolDocument): string {
  const parts: string[] = [];
  for (const field of weightedFields(doc)) {
    const terms = repeated(field.text, field.weight);
    if (terms) parts.push(terms);
  }
  return parts.join(' ');
}

function filterQuery(filter: ToolSearchFilter): estypes.QueryDslQueryContainer {
  if (filter.scope.length === 0) return { match_none: {} };
  const clauses = filter.scope.map(
    (clause): estypes.QueryDslQueryContainer => ({
      bool: {
        filter: [
          clause.idGlob === '**' ? { match_all: {} } : { regexp: { id: { value: globToRegexp(clause.idGlob), flags: 'NONE' } } },
          { range: { risk_rank: { lte: RISK_ORDER.indexOf(clause.maxRisk) } } },
        ],
      },
    }),
  );
  const scope: estypes.QueryDslQueryContainer = { bool: { should: clauses, minimum_should_match: 1 } };
  if (!filter.categories || filter.categories.length === 0) return scope;
  return { bool: { filter: [scope, { terms: { category: filter.categories } }] } };
}

function dimensionsOf(tools: IndexedTool[]): number | null {
  const dims = tools.find((t) => t.vectors.length > 0)?.vectors[0].length ?? null;
  for (const { doc, vectors } of tools) {
    const other = vectors.find((v) => v.length !== dims);
    if (other) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `tool ${doc.id} has a ${other.length}-dimensional vector, the others ${dims}`);
  }
  return dims;
}

const sameSpace = (state: IndexState | null, model: string, vector: Float32Array) => state !== null && state.model === model && state.dims === vector.length;

const window = (k: number) => Math.max(0, Math.min(MAX_WINDOW, Math.floor(k)));

function unavailable(error: unknown): boolean {
  const { errors } = elasticsearch();
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) return true;
  if (error instanceof errors.ResponseError) return error.statusCode === 429 || (error.statusCode ?? 0) >= 500;
  return false;
}

function causeOf(error: unknown): string {
  if (error instanceof elasticsearch().errors.ResponseError) {
    const reason = (error.body as { error?: { reason?: string; root_cause?: { reason?: string }[] } } | undefined)?.error;
    return reason?.root_cause?.[0]?.reason ?? reason?.reason ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function redact(node: string): string {
  try {
    const url = new URL(node);
    url.username = '';
    url.password = '';
    return url.origin;
  } catch {
    return node;
  }
}
