/**
 * How many examples each tool keeps when a scope holds more than `budget`: the largest level L such
 * that every tool keeping at most L of its examples fits the budget. Tools with few examples keep
 * them all; only the most-used tools are trimmed, down to a common level. Never below 1, so every
 * tool keeps its newest example even when a scope has more tools than its budget.
 */
export function usageLevel(counts: readonly number[], budget: number): number {
  const sorted = [...counts].sort((a, b) => a - b);
  let total = sorted.reduce((sum, count) => sum + count, 0);
  if (total <= budget) return sorted.at(-1) ?? 0;
  // Walk down from the top: at a level between two counts, every tool above it keeps exactly the level.
  total = 0;
  for (let i = 0; i < sorted.length; i++) {
    const above = sorted.length - i;
    // Everything below index i keeps its count; the `above` largest keep the level.
    const level = Math.floor((budget - total) / above);
    if (level < sorted[i]) return Math.max(1, level);
    total += sorted[i];
  }
  return Math.max(1, sorted.at(-1) ?? 1);
}
