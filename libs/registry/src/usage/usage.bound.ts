/**
 * How many examples each tool keeps when a scope holds more than `budget`: the largest level L such
 * that every tool keeping at most L of its examples fits the budget. Tools with few examples keep
 * them all; only the most-used tools are trimmed, down to a common level. Never below 1, so every
 * tool keeps its newest example even when a scope has more tools than its budget.
 */
export function usageLevel(counts: readonly number[], budget: number): number {
  const sorted = [...counts].sort((a, b) => a - b);
  // From the least-used up: the tools below i keep all of theirs, the rest share what is left evenly.
  let keptBelow = 0;
  for (let i = 0; i < sorted.length; i++) {
    const level = Math.floor((budget - keptBelow) / (sorted.length - i));
    if (level < sorted[i]) return Math.max(1, level);
    keptBelow += sorted[i];
  }
  // Everything fits.
  return sorted.at(-1) ?? 0;
}
