import { QuantizedVectors } from './quantized-vectors.store';
import { TermPostings } from './term.postings';

/** What one tenant's runs taught about one document (by slot). */
interface LearnedEntry {
  /** Learned term -> field-weighted frequency. */
  tf: Map<string, number>;
  length: number;
  /** The learned queries' vectors back to back (exact scores come from these). */
  packed: Float32Array;
}

/**
 * One tenant's learned text and vectors of the embedded index, kept beside the shared documents by
 * slot: a query of this tenant adds them to each document's terms, length and vectors, a query of
 * another tenant never reads them. The shared index renumbers slots on compaction and rebuilds these.
 */
export class TenantLearning {
  readonly postings = new Map<string, TermPostings>();
  readonly vectors = new QuantizedVectors();
  private readonly bySlot = new Map<number, LearnedEntry>();
  /** Sum of the learned lengths of live slots. */
  totalLength = 0;

  get size(): number {
    return this.bySlot.size;
  }

  add(slot: number, tf: Map<string, number>, length: number, vectors: Float32Array[]): void {
    for (const [term, frequency] of tf) {
      const postings = this.postings.get(term) ?? new TermPostings();
      this.postings.set(term, postings);
      postings.add(slot, frequency);
    }
    const packed = new Float32Array(vectors.reduce((n, v) => n + v.length, 0));
    let offset = 0;
    for (const vector of vectors) {
      packed.set(vector, offset);
      offset += vector.length;
    }
    this.vectors.add(slot, vectors);
    this.bySlot.set(slot, { tf, length, packed });
    this.totalLength += length;
  }

  /** The slot's document is gone (its postings die lazily, as the shared ones do). */
  kill(slot: number): void {
    const entry = this.bySlot.get(slot);
    if (!entry) return;
    for (const term of entry.tf.keys()) (this.postings.get(term) as TermPostings).live--;
    this.totalLength -= entry.length;
    this.bySlot.delete(slot);
  }

  lengthOf(slot: number): number {
    return this.bySlot.get(slot)?.length ?? 0;
  }

  has(slot: number, term: string): boolean {
    return this.bySlot.get(slot)?.tf.has(term) ?? false;
  }

  packedOf(slot: number): Float32Array | undefined {
    return this.bySlot.get(slot)?.packed;
  }

  /** The same learning over renumbered slots (`remap[old]`, -1 for a dead one), without vectors when `dropVectors`. */
  rebuilt(remap: Int32Array, dims: number, dropVectors = false): TenantLearning {
    const next = new TenantLearning();
    const live = [...this.bySlot].map(([old, entry]) => [remap[old], entry] as const).filter(([slot]) => slot >= 0);
    for (const [slot, { tf, length, packed }] of live.sort((a, b) => a[0] - b[0])) {
      const rows: Float32Array[] = [];
      if (!dropVectors) for (let offset = 0; offset + dims <= packed.length && dims > 0; offset += dims) rows.push(packed.subarray(offset, offset + dims));
      next.add(slot, tf, length, rows);
    }
    return next;
  }
}
