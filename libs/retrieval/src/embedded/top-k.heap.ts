/**
 * The best k of a stream of (slot, score), by score and then by id (`localeCompare`, so ties
 * come out in a stable order): a bounded heap whose root is the worst kept, O(n log k) instead of a
 * full sort. Ids are looked up only to break exact ties.
 */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly idOf: (slot: number) => string,
  ) {
    this.slots = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  offer(slot: number, score: number): void {
    if (this.k === 0) return;
    if (this.size < this.k) {
      this.slots[this.size] = slot;
      this.scores[this.size] = score;
      this.up(this.size++);
    } else if (this.worse(this.slots[0], this.scores[0], slot, score)) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** Kept entries, best first. */
  drain(): { slot: number; score: number }[] {
    const out: { slot: number; score: number }[] = [];
    while (this.size > 0) {
      out.push({ slot: this.slots[0], score: this.scores[0] });
      this.size--;
      this.slots[0] = this.slots[this.size];
      this.scores[0] = this.scores[this.size];
      this.down(0);
    }
    return out.reverse();
  }

  /** True when (slotA, a) ranks below (slotB, b). */
  private worse(slotA: number, a: number, slotB: number, b: number): boolean {
    return a < b || (a === b && this.idOf(slotA).localeCompare(this.idOf(slotB)) > 0);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(this.slots[i], this.scores[i], this.slots[parent], this.scores[parent])) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const child = right < this.size && this.worse(this.slots[right], this.scores[right], this.slots[left], this.scores[left]) ? right : left;
      if (!this.worse(this.slots[child], this.scores[child], this.slots[i], this.scores[i])) return;
      this.swap(i, child);
      i = child;
    }
  }

  private swap(i: number, j: number): void {
    const slot = this.slots[i];
    const score = this.scores[i];
    this.slots[i] = this.slots[j];
    this.scores[i] = this.scores[j];
    this.slots[j] = slot;
    this.scores[j] = score;
  }
}

/** The k-th largest of a stream of numbers (or -Infinity while fewer than k came): a bounded min-heap. */
export class KthLargest {
  private readonly values: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.values = new Float64Array(k);
  }

  offer(value: number): void {
    const v = this.values;
    if (this.size < this.k) {
      let i = this.size++;
      v[i] = value;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (v[parent] <= v[i]) break;
        [v[parent], v[i]] = [v[i], v[parent]];
        i = parent;
      }
    } else if (this.k > 0 && value > v[0]) {
      v[0] = value;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        if (left >= this.size) break;
        const right = left + 1;
        const child = right < this.size && v[right] < v[left] ? right : left;
        if (v[child] >= v[i]) break;
        [v[child], v[i]] = [v[i], v[child]];
        i = child;
      }
    }
  }

  get value(): number {
    return this.size === this.k && this.k > 0 ? this.values[0] : Number.NEGATIVE_INFINITY;
  }
}
