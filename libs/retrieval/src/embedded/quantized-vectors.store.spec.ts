import { QuantizedVectors } from './quantized-vectors.store';

/** Seeded uniform numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const unit = (v: Float32Array) => {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
};

describe('QuantizedVectors', () => {
  it('finds candidates that always hold the exact top k (best row per slot, filtered), and few of them', () => {
    for (const dims of [384, 20]) {
      const next = random(dims);
      const noise = (scale: number) => (next() - 0.5) * scale;
      // Clusters of near-duplicates, as in a catalog of variants: the hard case for a quantised scan.
      const centres = Array.from({ length: 40 }, () => unit(Float32Array.from({ length: dims }, () => noise(2))));
      const store = new QuantizedVectors();
      const rowsOf: Float32Array[][] = [];
      for (let slot = 0; slot < 1500; slot++) {
        const centre = centres[slot % centres.length];
        const rows = Array.from({ length: 1 + (slot % 3) }, () => unit(centre.map((x) => x + noise(0.08))));
        rowsOf.push(rows);
        store.add(slot, rows);
      }
      const allowed = Uint8Array.from(rowsOf, (_, slot) => (slot % 5 === 0 ? 0 : 1));
      for (let q = 0; q < 8; q++) {
        const query = unit(centres[q].map((x) => x + noise(0.1)));
        const exact = rowsOf
          .map((rows, slot) => ({ slot, score: Math.max(...rows.map((row) => row.reduce((s, x, i) => s + x * query[i], 0))) }))
          .filter(({ slot }) => allowed[slot] === 1)
          .sort((a, b) => b.score - a.score);
        const candidates = new Set(store.candidates(query, 50, allowed));
        for (const { slot } of exact.slice(0, 50)) expect(candidates.has(slot)).toBe(true);
        for (const slot of candidates) expect(allowed[slot]).toBe(1);
        expect(candidates.size).toBeLessThan(exact.length / 2);
      }
    }
  });

  it('returns every allowed slot when fewer than k are allowed, and nothing when k is 0', () => {
    const store = new QuantizedVectors();
    store.add(0, [unit(Float32Array.from([1, 2, 3]))]);
    store.add(1, [unit(Float32Array.from([3, 2, 1]))]);
    store.add(2, []);
    const query = unit(Float32Array.from([1, 0, 0]));
    expect([...store.candidates(query, 5, Uint8Array.from([1, 1, 1]))].sort()).toEqual([0, 1]);
    expect([...store.candidates(query, 5, Uint8Array.from([0, 1, 1]))]).toEqual([1]);
    expect(store.candidates(query, 0, Uint8Array.from([1, 1, 1]))).toHaveLength(0);
    expect(() => store.add(3, [new Float32Array(4)])).toThrow(RangeError);
  });
});
