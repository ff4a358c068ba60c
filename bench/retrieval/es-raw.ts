import type { estypes } from '@elastic/elasticsearch';
import { type ToolSearchFilter, tokenize } from '@toolgate/retrieval';
import { RISK_ORDER } from '@toolgate/sdk';

/**
 * The requests ElasticsearchToolIndex sends for `lexical` and `semantic`, rebuilt here (the driver keeps
 * them private), so the benchmark can send the same body straight through the official client and
 * compare round trips. Mirrors libs/retrieval/src/elasticsearch/elasticsearch-tool-index.ts at the
 * commit the results name; the benchmark checks each raw answer against the driver's (same ids).
 */

const MAX_WINDOW = 10_000;
const MAX_QUERY_TERMS = 1_000;
const BEST_FIRST: estypes.Sort = [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }];

const window = (k: number) => Math.max(0, Math.min(MAX_WINDOW, Math.floor(k)));

/** The driver's filter translation, for the globs the benchmark uses (`**` only). */
function filterQuery(filter: ToolSearchFilter): estypes.QueryDslQueryContainer {
  if (filter.scope.length === 0) return { match_none: {} };
  const clauses = filter.scope.map((clause): estypes.QueryDslQueryContainer => {
    if (clause.idGlob !== '**') throw new Error(`the raw replica only translates the '**' glob, not ${clause.idGlob}`);
    return { bool: { filter: [{ match_all: {} }, { range: { risk_rank: { lte: RISK_ORDER.indexOf(clause.maxRisk) } } }] } };
  });
  const scope: estypes.QueryDslQueryContainer = { bool: { should: clauses, minimum_should_match: 1 } };
  if (!filter.categories || filter.categories.length === 0) return scope;
  return { bool: { filter: [scope, { terms: { category: filter.categories } }] } };
}

/** The lexical request, or null when the driver would not send one (no terms). */
export function rawLexicalRequest(alias: string, text: string, k: number, filter: ToolSearchFilter): estypes.SearchRequest | null {
  const size = window(k);
  const terms = [...new Set(tokenize(text))].slice(0, MAX_QUERY_TERMS);
  if (size === 0 || terms.length === 0) return null;
  return {
    index: alias,
    ignore_unavailable: true,
    allow_no_indices: true,
    size,
    _source: ['version'],
    track_total_hits: false,
    track_scores: true,
    sort: BEST_FIRST,
    query: {
      bool: {
        should: terms.map((term) => ({ match: { text: { query: term, _name: term } } })),
        minimum_should_match: 1,
        filter: [filterQuery(filter)],
      },
    },
  };
}

export function rawSemanticRequest(alias: string, vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): estypes.SearchRequest {
  const size = window(k);
  return {
    index: alias,
    ignore_unavailable: true,
    allow_no_indices: true,
    size,
    _source: ['version'],
    track_total_hits: false,
    track_scores: true,
    sort: BEST_FIRST,
    knn: {
      field: 'vectors.vector',
      query_vector: Array.from(vector),
      k: size,
      num_candidates: Math.min(MAX_WINDOW, Math.max(100, 4 * size)),
      filter: [filterQuery(filter), { term: { model } }],
    },
  };
}
