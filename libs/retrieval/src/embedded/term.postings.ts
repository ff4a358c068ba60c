/**
 * One term's postings: the slots of the documents holding it, ascending, with the term's
 * field-weighted frequency in each. Removal is lazy (the slot dies, `live` drops); the index
 * rebuilds postings when dead slots pile up.
 */
export class TermPostings {
  slots = new Int32Array(4);
  frequencies = new Float64Array(4);
  size = 0;
  /** Live documents holding the term: BM25's document frequency. */
  live = 0;

  add(slot: number, frequency: number): void {
    if (this.size === this.slots.length) {
      const slots = new Int32Array(this.size * 2);
      slots.set(this.slots);
      this.slots = slots;
      const frequencies = new Float64Array(this.size * 2);
      frequencies.set(this.frequencies);
      this.frequencies = frequencies;
    }
    this.slots[this.size] = slot;
    this.frequencies[this.size++] = frequency;
    this.live++;
  }
}
