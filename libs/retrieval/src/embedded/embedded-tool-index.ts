import { tokenize } from '../documents/tokenizer';
import { type ToolDocument, weightedFields } from '../documents/tool-document';
import { type IndexedTool, type RankedHit, ToolIndex, type ToolSearchFilter } from '../index/tool-index.port';
import { FilterCache } from './tool-filter';

const K1 = 1.2;
const B = 0.75;

interface Entry {
  doc: ToolDocument;
  /** Field-weighted term frequencies. */
  tf: Map<string, number>;
  length: number;
  /** The tool's vectors, back to back: `vectors.length / dimensions` of them. */
  vectors: Float32Array;
}

/**
 * The in-process driver: BM25 over an inverted index of the weighted tool document, and exact
 * (brute-force) cosine kNN over each tool's vectors. Exact search is the right trade at catalog
 * sizes up to ~100k tools: no index build, no recall loss, and a scan of contiguous floats.
 */
export class EmbeddedToolIndex extends ToolIndex {
  readonly driver = 'embedded';
  private readonly entries = new Map<string, Entry>();
  /** term -> ids of the documents holding it: a query touches only its terms' postings. */
  private readonly postings = new Map<string, Set<string>>();
  private totalLength = 0;
  private model: string | null = null;
  private readonly filters = new FilterCache();

  async upsert(tools: IndexedTool[], model: string): Promise<void> {
    this.model = model;
    for (const { doc, vectors } of tools) {
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
      const packed = new Float32Array(vectors.reduce((n, v) => n + v.length, 0));
      let offset = 0;
      for (const vector of vectors) {
        packed.set(vector, offset);
        offset += vector.length;
      }
      this.entries.set(doc.id, { doc, tf, length, vectors: packed });
      this.totalLength += length;
    }
  }

  async embeddingModel(): Promise<string | null> {
    return this.entries.size === 0 ? null : this.model;
  }

  async remove(ids: string[]): Promise<void> {
    for (const id of ids) this.drop(id);
  }

  async ids(): Promise<string[]> {
    return [...this.entries.keys()];
  }

  async ping(): Promise<void> {}

  async lexical(text: string, k: number, filter: ToolSearchFilter): Promise<RankedHit[]> {
    const terms = [...new Set(tokenize(text))];
    if (terms.length === 0 || this.entries.size === 0) return [];
    const allowed = this.filters.get(filter);
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
    return topK(
      [...candidates.values()].map((c) => ({ id: c.entry.doc.id, version: c.entry.doc.version, score: c.score, matchedTerms: c.matched })),
      k,
    );
  }

  async semantic(vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): Promise<RankedHit[]> {
    if (this.entries.size === 0 || this.model !== model) return [];
    const allowed = this.filters.get(filter);
    const dims = vector.length;
    const scored: Omit<RankedHit, 'rank'>[] = [];
    for (const entry of this.entries.values()) {
      if (entry.vectors.length === 0 || !allowed(entry.doc)) continue;
      const v = entry.vectors;
      let best = Number.NEGATIVE_INFINITY;
      for (let offset = 0; offset < v.length; offset += dims) {
        let sum = 0;
        for (let i = 0; i < dims; i++) sum += vector[i] * v[offset + i];
        if (sum > best) best = sum;
      }
      scored.push({ id: entry.doc.id, version: entry.doc.version, score: best });
    }
    return topK(scored, k);
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

/** Best k by score, ties by id so results are stable. */
function topK(hits: Omit<RankedHit, 'rank'>[], k: number): RankedHit[] {
  hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  return hits.slice(0, k).map((hit, i) => ({ ...hit, rank: i + 1 }));
}
