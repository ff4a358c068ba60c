import { KthLargest, TopK } from './top-k.heap';

describe('TopK', () => {
  it('keeps the best k by score, ties by id, best first — like a full sort', () => {
    const ids = ['d', 'b', 'a', 'c', 'e', 'f', 'g'];
    const scores = [0.5, 0.9, 0.5, 0.5, 0.1, 0.9, 0.7];
    const sorted = ids.map((id, slot) => ({ id, slot, score: scores[slot] })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    for (const k of [0, 1, 3, 5, 7]) {
      const top = new TopK(k, (slot) => ids[slot]);
      for (const [slot, score] of scores.entries()) top.offer(slot, score);
      expect(top.drain()).toEqual(sorted.slice(0, k).map(({ slot, score }) => ({ slot, score })));
    }
  });
});

describe('KthLargest', () => {
  it('is the k-th largest seen, or -Infinity before k values', () => {
    const kth = new KthLargest(3);
    kth.offer(5);
    kth.offer(1);
    expect(kth.value).toBe(Number.NEGATIVE_INFINITY);
    for (const v of [9, 3, 7, 2]) kth.offer(v);
    expect(kth.value).toBe(5);
    expect(new KthLargest(0).value).toBe(Number.NEGATIVE_INFINITY);
  });
});
