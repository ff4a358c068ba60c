import { tokenize } from '../documents/text.tokenizer';
import type { ToolDocument } from '../documents/tool.document';
import type { FusedCandidate } from '../funnel/rank.fusion';
import { type RerankCandidate, Reranker } from './reranker.port';

/** Weight of each feature in the linear score; every feature lies in [0, 1]. */
export interface FeatureWeights {
  /** The fused score relative to the best candidate's: the recall stages' opinion. */
  fused: number;
  /** Reciprocal BM25 rank, `60 / (60 + rank)` (0 when only the vector side found it). */
  lexicalRank: number;
  /** Reciprocal vector rank, the same way. */
  semanticRank: number;
  /** Share of the tool name's words that the query uses ("calculateCropWaterRequirement" -> 3 of 4). */
  nameCoverage: number;
  /** The query names the tool verbatim ("run ResearchHelper", "use get_weather"). */
  nameMention: number;
  /** Share of the tool's parameter-name words that the query uses. */
  parameterCoverage: number;
  /** Share of the query's words found anywhere in the tool's title, description, tags and parameters. */
  queryCoverage: number;
  /** Cosine similarity of the query to the tool (best of its vectors), when there is a semantic side. */
  cosine: number;
}

/**
 * Coordinate search on development data only (Seal-Tools dev, UltraTool's non-test requests), with
 * clause merging on. The parameter-name weight is not fitted: those sets carry no structured parameters.
 */
export const DEFAULT_FEATURE_WEIGHTS: FeatureWeights = {
  fused: 0,
  lexicalRank: 0.3,
  semanticRank: 0.05,
  nameCoverage: 0.1,
  nameMention: 0.05,
  parameterCoverage: 0.1,
  queryCoverage: 0.2,
  cosine: 0.8,
};

export interface ShortQueryWeights {
  maxTerms: number;
  weights: FeatureWeights;
}

/**
 * A short request (MetaTool's "Can I find any peer-reviewed papers?") shares few words with the tool
 * it wants, so its BM25 rank is weak evidence and the cosine carries it; a clause of a longer
 * request keeps the general weights, so its scores compare with the whole request's in the merge.
 * Fitted on a seeded 20% tuning draw of MetaTool single (seed 7) and checked on Seal-Tools dev.
 */
export const DEFAULT_SHORT_QUERY_WEIGHTS: ShortQueryWeights | null = {
  maxTerms: 16,
  weights: { ...DEFAULT_FEATURE_WEIGHTS, lexicalRank: 0.1, cosine: 1 },
};

/** Rank offset of the reciprocal-rank features, as in reciprocal rank fusion. */
const RANK_OFFSET = 60;
const reciprocal = (rank: number | undefined) => (rank === undefined ? 0 : RANK_OFFSET / (RANK_OFFSET + rank));

interface DocTerms {
  name: string[];
  identifier: string;
  parameters: string[];
  all: Set<string>;
}

export interface FeatureScores extends Record<keyof FeatureWeights, number> {}

/**
 * The default reranker: a linear score over cheap, explainable features of the query and each tool
 * document (exact name and identifier matches, parameter names, word overlap) on top of the fused
 * score. Deterministic, no model, microseconds per candidate.
 */
export class FeatureReranker extends Reranker {
  readonly name = 'feature';
  private readonly terms = new WeakMap<ToolDocument, DocTerms>();

  constructor(
    private readonly weights: FeatureWeights = DEFAULT_FEATURE_WEIGHTS,
    /** Weights for a request of at most `maxTerms` content words; null: one set for every request. */
    private readonly shortQuery: ShortQueryWeights | null = DEFAULT_SHORT_QUERY_WEIGHTS,
  ) {
    super();
  }

  private termsOf(doc: ToolDocument): DocTerms {
    let terms = this.terms.get(doc);
    if (!terms) {
      const parameters = [...new Set(doc.parameters.flatMap((p) => tokenize(p.name)))];
      const name = [...new Set(tokenize(doc.name))];
      terms = {
        name,
        identifier: doc.name.toLowerCase(),
        parameters,
        all: new Set([...name, ...parameters, ...tokenize([doc.title, doc.description, ...doc.tags, ...doc.category, ...doc.parameters.map((p) => p.description)].join(' '))]),
      };
      this.terms.set(doc, terms);
    }
    return terms;
  }

  /** Each feature of one candidate for a query, in [0, 1]. */
  features(query: { text: string; terms: Set<string> }, candidate: FusedCandidate, doc: ToolDocument | undefined, bestFused: number): FeatureScores {
    const fused = bestFused > 0 ? candidate.fused / bestFused : 0;
    const cosine = Math.max(0, candidate.semantic?.score ?? 0);
    const lexicalRank = reciprocal(candidate.lexical?.rank);
    const semanticRank = reciprocal(candidate.semantic?.rank);
    if (!doc) return { fused, lexicalRank, semanticRank, nameCoverage: 0, nameMention: 0, parameterCoverage: 0, queryCoverage: 0, cosine };
    const terms = this.termsOf(doc);
    const share = (words: string[]) => (words.length === 0 ? 0 : words.filter((w) => query.terms.has(w)).length / words.length);
    let covered = 0;
    for (const term of query.terms) if (terms.all.has(term)) covered++;
    return {
      fused,
      lexicalRank,
      semanticRank,
      nameCoverage: share(terms.name),
      nameMention: terms.identifier.length >= 4 && mentions(query.text, terms.identifier) ? 1 : 0,
      parameterCoverage: share(terms.parameters),
      queryCoverage: query.terms.size === 0 ? 0 : covered / query.terms.size,
      cosine,
    };
  }

  async rerank(query: string, candidates: readonly RerankCandidate[], request = query): Promise<FusedCandidate[]> {
    const q = { text: query.toLowerCase(), terms: new Set(tokenize(query)) };
    // A clause of a long request keeps the general weights: its scores are merged with the whole request's.
    const weights = this.shortQuery && new Set(tokenize(request)).size <= this.shortQuery.maxTerms ? this.shortQuery.weights : this.weights;
    const bestFused = Math.max(0, ...candidates.map(({ candidate }) => candidate.fused));
    const scored = candidates.map(({ candidate, doc }, fusedRank) => {
      const features = this.features(q, candidate, doc, bestFused);
      let score = 0;
      for (const key of Object.keys(weights) as (keyof FeatureWeights)[]) score += weights[key] * features[key];
      return { candidate, score, fusedRank };
    });
    scored.sort((a, b) => b.score - a.score || a.fusedRank - b.fusedRank);
    return scored.map(({ candidate, score }, i) => ({ ...candidate, rerank: { reranker: this.name, score, rank: i + 1 } }));
  }
}

/** The identifier appears as a whole word (not inside a longer one). */
function mentions(text: string, identifier: string): boolean {
  let from = text.indexOf(identifier);
  while (from >= 0) {
    const before = text[from - 1];
    const after = text[from + identifier.length];
    if ((before === undefined || !/[\p{L}\p{N}_]/u.test(before)) && (after === undefined || !/[\p{L}\p{N}_]/u.test(after))) return true;
    from = text.indexOf(identifier, from + 1);
  }
  return false;
}
