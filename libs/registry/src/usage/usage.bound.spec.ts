import { usageLevel } from './usage.bound';

describe('usageLevel', () => {
  it('keeps everything within the budget', () => {
    expect(usageLevel([3, 10, 1], 14)).toBe(10);
    expect(usageLevel([], 5)).toBe(0);
  });

  it('trims only the most-used tools, to a common level, never past the budget', () => {
    // 2 + 5 + min(40, L) + min(100, L) <= 50 -> L = 21.
    expect(usageLevel([2, 40, 5, 100], 50)).toBe(21);
    expect(usageLevel([10, 10, 10], 29)).toBe(9);
    for (const [counts, budget] of [
      [[1, 2, 3, 1000], 100],
      [[7, 7, 7, 7], 27],
      [[500, 3, 9999, 12, 1], 1000],
    ] as const) {
      const level = usageLevel(counts, budget);
      const kept = (l: number) => counts.reduce((sum, c) => sum + Math.min(c, l), 0);
      expect(kept(level)).toBeLessThanOrEqual(budget);
      expect(kept(level + 1)).toBeGreaterThan(budget);
    }
  });

  it('leaves every tool its newest example when there are more tools than the budget', () => {
    expect(usageLevel([5, 5, 5, 5], 2)).toBe(1);
  });
});
