import { dot, type Embedder, tokenize, toolNameKey, withoutQuotedValues } from '@toolgate/retrieval';
import { allowedWords } from '../arguments/schema.fields';
import type { PlanningCandidate } from '../plan/plan.types';

/** How well one candidate fits one sub-goal. */
export interface ToolMatch {
  candidate: PlanningCandidate;
  /** Combined score: what the planner ranks and thresholds on. */
  score: number;
  /** BM25 over the tool's text, scaled to [0,1] by the best the sub-goal's words could score. */
  lexical: number;
  /** Cosine between the sub-goal and the tf-idf centroid of the tool's example queries, in [0,1]. */
  example: number;
  /** Mean cosine between the sub-goal and the tool's nearest texts (its description and examples); null without an embedder. */
  semantic: number | null;
  matchedTerms: string[];
}

export interface MatcherWeights {
  lexical: number;
  example: number;
  semantic: number;
}

export const DEFAULT_MATCHER_WEIGHTS: MatcherWeights = { lexical: 0.5, example: 0.5, semantic: 1 };

interface ToolProfile {
  /** Field-weighted term frequencies of the tool's text. */
  terms: Map<string, number>;
  length: number;
  examples: Set<string>[];
  embeddingTexts: string[];
}

const splitName = (id: string) => id.replace(/[/_.-]+/g, ' ');

const BM25_K1 = 1.2;
const BM25_B = 0.75;

function addTerms(terms: Map<string, number>, text: string, weight: number): number {
  const tokens = tokenize(text);
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + weight);
  return tokens.length * weight;
}

function profileOf(candidate: PlanningCandidate): ToolProfile {
  const d = candidate.descriptor;
  const terms = new Map<string, number>();
  let length = 0;
  length += addTerms(terms, `${splitName(candidate.id)} ${d.title}`, 2);
  length += addTerms(terms, d.description, 1);
  length += addTerms(terms, [...d.category, ...d.tags].join(' '), 1.5);
  const properties = (d.inputSchema?.properties ?? {}) as Record<string, { description?: unknown; enum?: unknown }>;
  // A field's allowed values are what the tool works on as much as its name is.
  length += addTerms(
    terms,
    Object.entries(properties)
      .map(([name, p]) => `${splitName(name)} ${typeof p?.description === 'string' ? p.description : ''} ${allowedWords(p).join(' ')}`)
      .join(' '),
    0.5,
  );
  // An example is read as a request is matched: without the quoted values it introduces.
  const queries = d.examples.map((e) => withoutQuotedValues(e.query));
  const examples = queries.map((q) => new Set(tokenize(q))).filter((s) => s.size > 0);
  const describe = [splitName(candidate.id), d.title === d.name ? '' : d.title, d.description].filter(Boolean).join('. ');
  return { terms, length, examples, embeddingTexts: [describe, ...queries] };
}

/**
 * How many of a tool's texts (description and example queries) its semantic fit averages over. With learned
 * usage a tool has many examples, and its single closest one is often a near-miss worded like the request;
 * the mean of its nearest few is a steadier vote (UltraTool dev, learned: node-F1 0.797 with the best one
 * alone, 0.799 / 0.802 / 0.802 with the nearest 5 / 7 / 10). A tool with fewer texts averages over all of them.
 */
const NEAREST_TEXTS = 7;

function nearestMean(similarities: number[]): number {
  const nearest = similarities.sort((a, b) => b - a).slice(0, NEAREST_TEXTS);
  return nearest.reduce((sum, s) => sum + s, 0) / Math.max(1, nearest.length);
}

function unit(vector: Map<string, number>): Map<string, number> {
  const norm = Math.sqrt([...vector.values()].reduce((sum, v) => sum + v * v, 0));
  if (norm > 0) for (const [k, v] of vector) vector.set(k, v / norm);
  return vector;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [k, v] of small) sum += v * (large.get(k) ?? 0);
  return sum;
}

/** The sub-goals as they are matched: without the quoted values they introduce, unless a quote names a candidate. */
function matchingTexts(subGoals: string[], candidates: PlanningCandidate[]): string[] {
  const toolNames = new Set(candidates.flatMap((c) => [toolNameKey(c.id), toolNameKey(c.descriptor.name)]));
  return subGoals.map((text) => withoutQuotedValues(text, toolNames));
}

/**
 * Ranks candidates for each sub-goal: BM25 over each candidate's text (IDF over the candidates, which is
 * what must be told apart), overlap with its example queries, and cosine similarity when an embedder is
 * given. Profiles and vectors are cached per descriptor object, so a catalog's tools are read once.
 */
export class ToolMatcher {
  private readonly profiles = new WeakMap<object, ToolProfile>();
  private readonly vectors = new WeakMap<object, Float32Array[]>();

  constructor(
    private readonly embedder: Embedder | null = null,
    private readonly weights: MatcherWeights = DEFAULT_MATCHER_WEIGHTS,
  ) {}

  private profile(candidate: PlanningCandidate): ToolProfile {
    let profile = this.profiles.get(candidate.descriptor);
    if (!profile) {
      profile = profileOf(candidate);
      this.profiles.set(candidate.descriptor, profile);
    }
    return profile;
  }

  private async toolVectors(candidates: PlanningCandidate[]): Promise<Float32Array[][]> {
    const embedder = this.embedder;
    if (!embedder) return [];
    const missing = candidates.filter((c) => !this.vectors.has(c.descriptor));
    const unique = [...new Map(missing.map((c) => [c.descriptor, c])).values()];
    if (unique.length > 0) {
      const texts = unique.map((c) => this.profile(c).embeddingTexts);
      const flat = await embedder.embed(texts.flat(), 'document');
      let next = 0;
      unique.forEach((c, i) => {
        this.vectors.set(c.descriptor, flat.slice(next, next + texts[i].length));
        next += texts[i].length;
      });
    }
    return candidates.map((c) => this.vectors.get(c.descriptor) ?? []);
  }

  /** Embeds the sub-goals' matching texts in one model call, so ranking them later finds their vectors cached. */
  async warm(subGoals: string[], candidates: PlanningCandidate[]): Promise<void> {
    if (this.embedder && subGoals.length > 0) await this.embedder.embed(matchingTexts(subGoals, candidates), 'query');
  }

  /** For each sub-goal, every candidate with its score, best first (ties broken by retrieval rank, then id). */
  async rank(written: string[], candidates: PlanningCandidate[]): Promise<ToolMatch[][]> {
    const subGoals = matchingTexts(written, candidates);
    const profiles = candidates.map((c) => this.profile(c));
    const documentFrequency = new Map<string, number>();
    for (const p of profiles) for (const term of p.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    const n = profiles.length;
    const idf = (term: string) => Math.log(1 + (n - (documentFrequency.get(term) ?? 0) + 0.5) / ((documentFrequency.get(term) ?? 0) + 0.5));
    const averageLength = profiles.reduce((sum, p) => sum + p.length, 0) / Math.max(1, n);

    // Examples are compared as a class: the tf-idf centroid of a tool's example queries, IDF over all candidates' examples.
    const exampleFrequency = new Map<string, number>();
    let exampleCount = 0;
    for (const p of profiles)
      for (const words of p.examples) {
        exampleCount++;
        for (const t of words) exampleFrequency.set(t, (exampleFrequency.get(t) ?? 0) + 1);
      }
    const exampleIdf = (term: string) => Math.log((exampleCount + 1) / ((exampleFrequency.get(term) ?? 0) + 1)) + 1;
    const centroids = profiles.map((p) => {
      const centroid = new Map<string, number>();
      for (const words of p.examples) {
        const norm = Math.sqrt([...words].reduce((sum, t) => sum + exampleIdf(t) ** 2, 0));
        for (const t of words) centroid.set(t, (centroid.get(t) ?? 0) + exampleIdf(t) / norm);
      }
      return unit(centroid);
    });
    const toolVectors = await this.toolVectors(candidates);
    const goalVectors = this.embedder && subGoals.length > 0 ? await this.embedder.embed(subGoals, 'query') : [];

    return subGoals.map((goal, g) => {
      const terms = [...new Set(tokenize(goal))];
      const best = terms.reduce((sum, t) => sum + idf(t) * (BM25_K1 + 1), 0);
      const goalVector = unit(new Map(terms.map((t) => [t, exampleIdf(t)])));
      const matches = candidates.map((candidate, c): ToolMatch => {
        const profile = profiles[c];
        let bm25 = 0;
        const matchedTerms: string[] = [];
        for (const term of terms) {
          const tf = profile.terms.get(term);
          if (!tf) continue;
          matchedTerms.push(term);
          bm25 += (idf(term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * profile.length) / Math.max(1, averageLength)));
        }
        const lexical = best > 0 ? bm25 / best : 0;
        const example = cosine(goalVector, centroids[c]);
        let semantic: number | null = null;
        if (goalVectors.length > 0) semantic = nearestMean(toolVectors[c].map((v) => dot(v, goalVectors[g])));
        const score = this.weights.lexical * lexical + this.weights.example * example + (semantic === null ? 0 : this.weights.semantic * semantic);
        return { candidate, score, lexical, example, semantic, matchedTerms };
      });
      return matches.sort((a, b) => b.score - a.score || a.candidate.rank - b.candidate.rank || a.candidate.id.localeCompare(b.candidate.id));
    });
  }
}
