import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { tokenize } from '../documents/text.tokenizer';
import { LEARNED_WEIGHT, type ToolDocument, weightedFields } from '../documents/tool.document';
import { type IndexedTool, type RankedHit, ToolIndex, type ToolSearchFilter } from '../index/tool-index.port';
import { MAX_DIMENSIONS, QuantizedVectors } from './quantized-vectors.store';
import { TenantLearning } from './tenant-learning.store';
import { TermPostings } from './term.postings';
import { FilterBitsets } from './tool.filter';
import { TopK } from './top-k.heap';

const K1 = 1.2;
const B = 0.75;
/** Rebuild once this many removed or replaced documents are still scanned, and they are a third of all. */
const MIN_DEAD_TO_COMPACT = 1024;

/**
 * The in-process driver: BM25 over an inverted index of the weighted tool document, and exact
 * cosine kNN over each tool's vectors. Documents live in slots (append-only, so filters and
 * postings extend cheaply; a replaced or removed document leaves a dead slot until a rebuild).
 * A query scores only the postings of its terms, reads filters from cached bitsets, and keeps the
 * best k in a bounded heap. The kNN side scans int8 copies of the vectors with a SIMD kernel to find
 * the tools that can be in the top k (with a proven error bound), then re-scores those exactly.
 * What a tenant's runs taught (`doc.learned`) lives beside the shared documents, per tenant: that
 * tenant's queries score each document as if its learned text and vectors were part of it (terms,
 * length, document frequency, best vector), and no other tenant's query reads it.
 */
export class EmbeddedToolIndex extends ToolIndex {
  readonly driver = 'embedded';
  private model: string | null = null;
  private readonly slotOf = new Map<string, number>();
  /** By slot; null once the document is removed or replaced. */
  private docs: (ToolDocument | null)[] = [];
  /** By slot: the document's term ids, ascending, and their field-weighted frequencies. */
  private termsOf: (Int32Array | null)[] = [];
  private lengths: Float64Array = new Float64Array(1024);
  /** By slot: the tool's float vectors back to back (exact scores come from these). */
  private vectorsOf: (Float32Array | null)[] = [];
  private vectors = new QuantizedVectors();
  private totalLength = 0;
  private dead = 0;
  private termIds = new Map<string, number>();
  private terms: string[] = [];
  private postings: TermPostings[] = [];
  private readonly filters = new FilterBitsets();
  private learning = new Map<string, TenantLearning>();
  /** Per-query, per-term scratch by slot for a tenant's queries: the term's frequency, shared plus learned. */
  private termTf = new Float64Array(0);
  private termStamps = new Uint32Array(0);
  private termSlots = new Int32Array(0);
  private termStamp = 0;
  /** Per-query scratch by slot: BM25 sums, whether this query touched the slot, and which it touched. */
  private scores = new Float64Array(0);
  private stamps = new Uint32Array(0);
  private touched = new Int32Array(0);
  private stamp = 0;
  private readonly idOf = (slot: number) => (this.docs[slot] as ToolDocument).id;

  async upsert(tools: IndexedTool[], model: string): Promise<void> {
    const keepVectors = this.model === null || this.model === model;
    const dims = keepVectors ? this.vectors.dimensions : 0;
    const expected = dims || tools.find((t) => t.vectors.length > 0)?.vectors[0].length || 0;
    if (expected > MAX_DIMENSIONS) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `model ${model} has ${expected} dimensions; the embedded index takes up to ${MAX_DIMENSIONS}`);
    for (const { doc, vectors, learnedVectors } of tools)
      for (const vector of [...vectors, ...Object.values(learnedVectors ?? {}).flat()])
        if (vector.length !== expected) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `tool ${doc.id} has a vector of ${vector.length} dimensions; model ${model} has ${expected}`);
    if (!keepVectors) {
      // Like the Elasticsearch driver: a new vector space replaces the old one; tools not re-embedded stay findable by text.
      this.vectors = new QuantizedVectors();
      this.vectorsOf.fill(null);
      const same = Int32Array.from(this.docs, (_, slot) => slot);
      for (const [tenant, part] of this.learning) this.learning.set(tenant, part.rebuilt(same, 0, true));
    }
    this.model = model;
    for (const { doc, vectors, learnedVectors } of tools) {
      this.kill(doc.id);
      const tf = new Map<string, number>();
      let length = 0;
      for (const field of weightedFields(doc)) {
        for (const term of tokenize(field.text)) {
          tf.set(term, (tf.get(term) ?? 0) + field.weight);
          length += field.weight;
        }
      }
      const slot = this.docs.length;
      const held = new Int32Array(tf.size);
      let next = 0;
      for (const [term, frequency] of tf) {
        const id = this.intern(term);
        this.postings[id].add(slot, frequency);
        held[next++] = id;
      }
      this.termsOf.push(held.sort());
      if (slot === this.lengths.length) this.lengths = grown(this.lengths, slot * 2);
      this.lengths[slot] = length;
      this.totalLength += length;
      const packed = new Float32Array(vectors.reduce((n, v) => n + v.length, 0));
      let offset = 0;
      for (const vector of vectors) {
        packed.set(vector, offset);
        offset += vector.length;
      }
      this.vectorsOf.push(packed);
      this.vectors.add(slot, vectors);
      this.learn(slot, doc, learnedVectors ?? {});
      this.docs.push(doc);
      this.slotOf.set(doc.id, slot);
    }
    this.compactIfSparse();
  }

  async embeddingModel(): Promise<string | null> {
    return this.slotOf.size === 0 ? null : this.model;
  }

  async remove(ids: string[]): Promise<void> {
    for (const id of ids) this.kill(id);
    this.compactIfSparse();
  }

  async ids(): Promise<string[]> {
    return [...this.slotOf.keys()];
  }

  async ping(): Promise<void> {}

  async lexical(text: string, k: number, filter: ToolSearchFilter): Promise<RankedHit[]> {
    // Yield once: when the funnel embeds the query concurrently, the model starts (on its own thread) before this scoring.
    await Promise.resolve();
    const queryTerms = [...new Set(tokenize(text))];
    const n = this.slotOf.size;
    const limit = Math.min(Math.floor(k), n);
    if (queryTerms.length === 0 || n === 0 || !(limit > 0)) return [];
    const allowed = this.filters.get(filter, this.docs);
    const part = filter.tenant === undefined ? undefined : this.learning.get(filter.tenant);
    if (part) return this.lexicalWith(part, queryTerms, limit, allowed);
    const avgLength = this.totalLength / n;
    const stamp = this.nextStamp();
    const { scores, stamps, touched, lengths } = this;
    let count = 0;
    const termIds: number[] = [];
    for (const term of queryTerms) {
      const id = this.termIds.get(term);
      const postings = id === undefined ? undefined : this.postings[id];
      if (!postings || postings.live === 0) continue;
      termIds.push(id as number);
      const idf = Math.log(1 + (n - postings.live + 0.5) / (postings.live + 0.5));
      const { slots, frequencies, size } = postings;
      for (let i = 0; i < size; i++) {
        const slot = slots[i];
        if (allowed[slot] !== 1) continue;
        if (stamps[slot] !== stamp) {
          stamps[slot] = stamp;
          scores[slot] = 0;
          touched[count++] = slot;
        }
        const tf = frequencies[i];
        scores[slot] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[slot]) / avgLength));
      }
    }
    const top = new TopK(limit, this.idOf);
    for (let i = 0; i < count; i++) top.offer(touched[i], scores[touched[i]]);
    return top.drain().map(({ slot, score }, i) => {
      const doc = this.docs[slot] as ToolDocument;
      const held = this.termsOf[slot] as Int32Array;
      const matchedTerms = termIds.filter((id) => binaryIncludes(held, id)).map((id) => this.terms[id]);
      return { id: doc.id, version: doc.version, score, matchedTerms, rank: i + 1 };
    });
  }

  async semantic(vector: Float32Array, k: number, filter: ToolSearchFilter, model: string): Promise<RankedHit[]> {
    const limit = Math.min(Math.floor(k), this.slotOf.size);
    const part = filter.tenant === undefined ? undefined : this.learning.get(filter.tenant);
    const learnedRows = part?.vectors.rows ?? 0;
    if (this.vectors.rows + learnedRows === 0 || this.model !== model || !(limit > 0)) return [];
    const dims = this.vectors.dimensions || (part as TenantLearning).vectors.dimensions;
    if (vector.length !== dims) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `a query vector of ${vector.length} dimensions; model ${model} has ${dims}`);
    const allowed = this.filters.get(filter, this.docs);
    // A tool in the top k by its best vector is in the top k of the store that holds that vector: the union of both stores' candidates holds the exact top k.
    const candidates = new Set(this.vectors.candidates(vector, limit, allowed));
    if (part) for (const slot of part.vectors.candidates(vector, limit, allowed)) candidates.add(slot);
    const top = new TopK(limit, this.idOf);
    for (const slot of candidates) {
      let best = Number.NEGATIVE_INFINITY;
      for (const v of [this.vectorsOf[slot] as Float32Array, part?.packedOf(slot)]) {
        if (!v) continue;
        for (let offset = 0; offset < v.length; offset += dims) {
          let sum = 0;
          for (let i = 0; i < dims; i++) sum += vector[i] * v[offset + i];
          if (sum > best) best = sum;
        }
      }
      top.offer(slot, best);
    }
    return top.drain().map(({ slot, score }, i) => {
      const doc = this.docs[slot] as ToolDocument;
      return { id: doc.id, version: doc.version, score, rank: i + 1 };
    });
  }

  /**
   * BM25 of one tenant's query: each document's terms, length and the collection's statistics are its
   * shared text plus the tenant's learned text, exactly as if that text were part of the documents.
   */
  private lexicalWith(part: TenantLearning, queryTerms: string[], limit: number, allowed: Uint8Array): RankedHit[] {
    const n = this.slotOf.size;
    const avgLength = (this.totalLength + part.totalLength) / n;
    const stamp = this.nextStamp();
    const { scores, stamps, touched, lengths, docs } = this;
    let count = 0;
    const matched: string[] = [];
    for (const term of queryTerms) {
      const id = this.termIds.get(term);
      const lists = [id === undefined ? undefined : this.postings[id], part.postings.get(term)].filter((p): p is TermPostings => p !== undefined && p.live > 0);
      if (lists.length === 0) continue;
      matched.push(term);
      // The term's frequency per live slot, shared plus learned; the slots holding it are its document frequency.
      const termStamp = this.nextTermStamp();
      const { termTf, termStamps, termSlots } = this;
      let holders = 0;
      for (const { slots, frequencies, size } of lists) {
        for (let i = 0; i < size; i++) {
          const slot = slots[i];
          if (docs[slot] === null) continue;
          if (termStamps[slot] !== termStamp) {
            termStamps[slot] = termStamp;
            termTf[slot] = 0;
            termSlots[holders++] = slot;
          }
          termTf[slot] += frequencies[i];
        }
      }
      const idf = Math.log(1 + (n - holders + 0.5) / (holders + 0.5));
      for (let i = 0; i < holders; i++) {
        const slot = termSlots[i];
        if (allowed[slot] !== 1) continue;
        if (stamps[slot] !== stamp) {
          stamps[slot] = stamp;
          scores[slot] = 0;
          touched[count++] = slot;
        }
        const tf = termTf[slot];
        const length = lengths[slot] + part.lengthOf(slot);
        scores[slot] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
      }
    }
    const top = new TopK(limit, this.idOf);
    for (let i = 0; i < count; i++) top.offer(touched[i], scores[touched[i]]);
    return top.drain().map(({ slot, score }, i) => {
      const doc = this.docs[slot] as ToolDocument;
      const held = this.termsOf[slot] as Int32Array;
      const matchedTerms = matched.filter((term) => {
        const id = this.termIds.get(term);
        return (id !== undefined && binaryIncludes(held, id)) || part.has(slot, term);
      });
      return { id: doc.id, version: doc.version, score, matchedTerms, rank: i + 1 };
    });
  }

  /** Stores the document's learned text and vectors, per tenant, at its slot. */
  private learn(slot: number, doc: ToolDocument, vectors: Record<string, Float32Array[]>): void {
    for (const [tenant, queries] of Object.entries(doc.learned ?? {})) {
      const tf = new Map<string, number>();
      let length = 0;
      for (const term of tokenize(queries.join(' '))) {
        tf.set(term, (tf.get(term) ?? 0) + LEARNED_WEIGHT);
        length += LEARNED_WEIGHT;
      }
      if (tf.size === 0 && (vectors[tenant] ?? []).length === 0) continue;
      const part = this.learning.get(tenant) ?? new TenantLearning();
      this.learning.set(tenant, part);
      part.add(slot, tf, length, vectors[tenant] ?? []);
    }
  }

  private intern(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(term, id);
      this.terms.push(term);
      this.postings.push(new TermPostings());
    }
    return id;
  }

  private kill(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    for (const term of this.termsOf[slot] as Int32Array) this.postings[term].live--;
    this.totalLength -= this.lengths[slot];
    this.docs[slot] = null;
    this.termsOf[slot] = null;
    this.vectorsOf[slot] = null;
    this.filters.kill(slot);
    for (const part of this.learning.values()) part.kill(slot);
    this.slotOf.delete(id);
    this.dead++;
  }

  /** Renumbers the live documents densely and rebuilds postings and vectors once dead slots are a third of all. */
  private compactIfSparse(): void {
    const live = this.slotOf.size;
    if (this.dead === 0 || (live > 0 && (this.dead < MIN_DEAD_TO_COMPACT || this.dead * 2 < live))) return;
    const { docs, termsOf, vectorsOf, lengths, terms, postings } = this;
    const dims = this.vectors.dimensions;
    // Map order is slot order (a replaced id was re-inserted with its new slot), so renumbering keeps postings ascending.
    const slotRemap = new Int32Array(docs.length).fill(-1);
    let next = 0;
    for (const old of this.slotOf.values()) slotRemap[old] = next++;
    this.termIds = new Map();
    this.terms = [];
    this.postings = [];
    const termRemap = new Int32Array(terms.length).fill(-1);
    for (const [old, list] of postings.entries()) {
      if (list.live === 0) continue;
      const term = this.intern(terms[old]);
      termRemap[old] = term;
      for (let i = 0; i < list.size; i++) {
        const slot = slotRemap[list.slots[i]];
        if (slot >= 0) this.postings[term].add(slot, list.frequencies[i]);
      }
    }
    this.docs = [];
    this.termsOf = [];
    this.vectorsOf = [];
    this.lengths = new Float64Array(Math.max(1024, live));
    this.vectors = new QuantizedVectors();
    this.filters.clear();
    this.dead = 0;
    const learning = this.learning;
    this.learning = new Map();
    for (const [tenant, part] of learning) {
      const next = part.rebuilt(slotRemap, dims || part.vectors.dimensions);
      if (next.size > 0) this.learning.set(tenant, next);
    }
    for (const [id, old] of this.slotOf) {
      const slot = this.docs.length;
      this.termsOf.push((termsOf[old] as Int32Array).map((term) => termRemap[term]));
      this.lengths[slot] = lengths[old];
      const packed = vectorsOf[old] ?? new Float32Array(0);
      this.vectorsOf.push(packed);
      const rows: Float32Array[] = [];
      for (let offset = 0; offset < packed.length; offset += dims) rows.push(packed.subarray(offset, offset + dims));
      this.vectors.add(slot, rows);
      this.docs.push(docs[old]);
      this.slotOf.set(id, slot);
    }
  }

  /** A fresh per-term stamp for a tenant's query; its scratch buffers sized to the slots. */
  private nextTermStamp(): number {
    if (this.termStamps.length < this.docs.length) {
      const size = Math.max(1024, this.docs.length * 2);
      this.termTf = new Float64Array(size);
      this.termStamps = new Uint32Array(size);
      this.termSlots = new Int32Array(size);
      this.termStamp = 0;
    }
    if (this.termStamp === 0xffffffff) {
      this.termStamps.fill(0);
      this.termStamp = 0;
    }
    return ++this.termStamp;
  }

  /** A fresh query stamp; scratch buffers sized to the slots. */
  private nextStamp(): number {
    if (this.stamps.length < this.docs.length) {
      const size = Math.max(1024, this.docs.length * 2);
      this.scores = new Float64Array(size);
      this.stamps = new Uint32Array(size);
      this.touched = new Int32Array(size);
      this.stamp = 0;
    }
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

function grown(array: Float64Array, length: number): Float64Array {
  const next = new Float64Array(length);
  next.set(array);
  return next;
}

function binaryIncludes(sorted: Int32Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] === value) return true;
    if (sorted[mid] < value) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
