import type { ToolGraph } from '../graph/tool.graph';

/** A chosen tool with where its sub-goal sat in the task (fractional for a step the graph added before another). */
export interface OrderItem {
  tool: string;
  position: number;
}

/** Above this many steps the search over orders is skipped: text order, which is already a good order. */
const MAX_PERMUTED = 7;

function* permutations(n: number): Generator<number[]> {
  const order = [...Array(n).keys()];
  const c = new Array(n).fill(0);
  yield [...order];
  let i = 0;
  while (i < n) {
    if (c[i] < i) {
      const j = i % 2 === 0 ? 0 : c[i];
      [order[j], order[i]] = [order[i], order[j]];
      yield [...order];
      c[i]++;
      i = 0;
    } else {
      c[i] = 0;
      i++;
    }
  }
}

/**
 * Orders steps: the order whose consecutive pairs the tool graph supports most, each swap against the
 * task's own order costing `inversionCost`; ties go to text order, so the result never depends on input order.
 */
export function orderSteps<T extends OrderItem>(items: readonly T[], graph: ToolGraph, inversionCost: number): T[] {
  const byText = [...items].sort((a, b) => a.position - b.position || a.tool.localeCompare(b.tool));
  if (byText.length < 2 || byText.length > MAX_PERMUTED) return byText;
  let best = byText;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const perm of permutations(byText.length)) {
    let score = 0;
    for (let k = 1; k < perm.length; k++) score += graph.weight(byText[perm[k - 1]].tool, byText[perm[k]].tool);
    for (let a = 0; a < perm.length; a++) for (let b = a + 1; b < perm.length; b++) if (perm[a] > perm[b]) score -= inversionCost;
    const candidate = perm.map((i) => byText[i]);
    if (
      score > bestScore + 1e-9 ||
      (Math.abs(score - bestScore) <= 1e-9 &&
        lexicographicallyBefore(
          perm,
          best.map((x) => byText.indexOf(x)),
        ))
    ) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

const lexicographicallyBefore = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};
