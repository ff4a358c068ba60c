import { compileToolGlob, RISK_ORDER } from '@toolgate/sdk';
import { tokenize } from '../documents/tokenizer';
import { type ToolDocument, weightedFields } from '../documents/tool-document';
import { type ToolHit, ToolIndex, type ToolSearchFilter, type ToolSearchQuery } from '../index/tool-index.port';

const K1 = 1.2;
const B = 0.75;

interface Entry {
  doc: ToolDocument;
  /** Field-weighted term frequencies. */
  tf: Map<string, number>;
  length: number;
}

/**
 * In-process BM25 over the weighted tool document. The first, lexical-only driver of the ToolIndex
 * port; the hybrid (BM25 + vectors) engine replaces it without changing the port.
 */
export class Bm25ToolIndex extends ToolIndex {
  readonly driver = 'embedded-bm25';
  private readonly entries = new Map<string, Entry>();
  /** term -> ids of the documents holding it: a query touches only its terms' postings. */
  private readonly postings = new Map<string, Set<string>>();
  private totalLength = 0;
  private readonly filters = new Map<string, (doc: ToolDocument) => boolean>();

  async upsert(docs: ToolDocument[]): Promise<void> {
    for (const doc of docs) {
      this.drop(doc.id);
      const tf = new Map<string, number>();
      let length = 0;
      for (const field of weightedFields(doc)) {
        for (const term of tokenize(field.text)) {
          tf.set(term, (tf.get(term) ?? 0) + field.weight);
          length += field.weight;
        }
      }
      for (const term of tf.keys()) {
        const ids = this.postings.get(term) ?? new Set<string>();
        ids.add(doc.id);
        this.postings.set(term, ids);
      }
      this.entries.set(doc.id, { doc, tf, length });
      this.totalLength += length;
    }
  }

  async remove(ids: string[]): Promise<void> {
    for (const id of ids) this.drop(id);
  }

  async ids(): Promise<string[]> {
    return [...this.entries.keys()];
  }

  async ping(): Promise<void> {}

  async search(query: ToolSearchQuery): Promise<ToolHit[]> {
    const terms = [...new Set(tokenize(query.text))];
    if (terms.length === 0 || this.entries.size === 0) return [];
    const allowed = this.filterFor(query.filter);
    const n = this.entries.size;
    const avgLength = this.totalLength / n;
    const candidates = new Map<string, { entry: Entry; score: number; matched: string[] }>();
    for (const term of terms) {
      const ids = this.postings.get(term);
      if (!ids) continue;
      const idf = Math.log(1 + (n - ids.size + 0.5) / (ids.size + 0.5));
      for (const id of ids) {
        const entry = this.entries.get(id) as Entry;
        let candidate = candidates.get(id);
        if (!candidate) {
          if (!allowed(entry.doc)) continue;
          candidate = { entry, score: 0, matched: [] };
          candidates.set(id, candidate);
        }
        const tf = entry.tf.get(term) as number;
        candidate.score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * entry.length) / avgLength));
        candidate.matched.push(term);
      }
    }
    const scored = [...candidates.values()];
    scored.sort((a, b) => b.score - a.score || a.entry.doc.id.localeCompare(b.entry.doc.id));
    return scored.slice(0, query.k).map(({ entry, score, matched }, i) => ({
      id: entry.doc.id,
      version: entry.doc.version,
      score,
      explanation: { stage: 'bm25', rank: i + 1, bm25: score, matchedTerms: matched },
    }));
  }

  /** Compiled filters are cached: a principal's scope repeats across its queries. */
  private filterFor(filter: ToolSearchFilter): (doc: ToolDocument) => boolean {
    const key = JSON.stringify(filter);
    let compiled = this.filters.get(key);
    if (!compiled) {
      if (this.filters.size >= 256) this.filters.clear();
      compiled = compileFilter(filter);
      this.filters.set(key, compiled);
    }
    return compiled;
  }

  private drop(id: string): void {
    const previous = this.entries.get(id);
    if (!previous) return;
    for (const term of previous.tf.keys()) {
      const ids = this.postings.get(term);
      ids?.delete(id);
      if (ids?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= previous.length;
    this.entries.delete(id);
  }
}

function compileFilter(filter: ToolSearchFilter): (doc: ToolDocument) => boolean {
  const clauses = filter.scope.map((c) => ({ matches: compileToolGlob(c.idGlob), maxRank: RISK_ORDER.indexOf(c.maxRisk) }));
  const categories = filter.categories && filter.categories.length > 0 ? new Set(filter.categories) : null;
  return (doc) => {
    if (categories && !doc.category.some((c) => categories.has(c))) return false;
    const rank = RISK_ORDER.indexOf(doc.risk);
    return clauses.some((c) => rank <= c.maxRank && c.matches(doc.id));
  };
}
