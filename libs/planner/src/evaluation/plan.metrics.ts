import { percentile } from '@toolgate/retrieval/evaluation';

/** A plan reduced to what TaskBench scores: tool names and (source, target) links. */
export interface PlanGraph {
  nodes: string[];
  links: [string, string][];
}

/** F1 of two sets; two empty sets agree perfectly. */
export function setF1(predicted: readonly string[], gold: readonly string[]): number {
  const p = new Set(predicted);
  const g = new Set(gold);
  if (p.size === 0 && g.size === 0) return 1;
  if (p.size === 0 || g.size === 0) return 0;
  let hits = 0;
  for (const x of p) if (g.has(x)) hits++;
  return hits === 0 ? 0 : (2 * hits) / (p.size + g.size);
}

export const nodeF1 = (predicted: PlanGraph, gold: PlanGraph): number => setF1(predicted.nodes, gold.nodes);

const linkKeys = (links: readonly [string, string][]) => links.map(([s, t]) => `${s}\u0000${t}`);
export const linkF1 = (predicted: PlanGraph, gold: PlanGraph): number => setF1(linkKeys(predicted.links), linkKeys(gold.links));

/** The exact set of tools, order and links aside. */
export function sameNodes(predicted: PlanGraph, gold: PlanGraph): boolean {
  const p = new Set(predicted.nodes);
  const g = new Set(gold.nodes);
  return p.size === g.size && [...p].every((x) => g.has(x));
}

export interface PlanReport {
  samples: number;
  /** Macro means over samples, in [0,1]. */
  nodeF1: number;
  linkF1: number;
  accuracy: number;
  latencyMs: { p50: number; p95: number; mean: number };
}

/** Accumulates per-sample scores (macro average, as TaskBench does) and latencies. */
export class PlanScorer {
  private readonly scores: { node: number; link: number; exact: number }[] = [];
  private readonly latencies: number[] = [];

  add(predicted: PlanGraph, gold: PlanGraph, latencyMs: number): void {
    this.scores.push({ node: nodeF1(predicted, gold), link: linkF1(predicted, gold), exact: sameNodes(predicted, gold) ? 1 : 0 });
    this.latencies.push(latencyMs);
  }

  report(): PlanReport {
    const n = this.scores.length;
    const mean = (pick: (s: { node: number; link: number; exact: number }) => number) => (n === 0 ? 0 : this.scores.reduce((sum, s) => sum + pick(s), 0) / n);
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      samples: n,
      nodeF1: mean((s) => s.node),
      linkF1: mean((s) => s.link),
      accuracy: mean((s) => s.exact),
      latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean: n === 0 ? 0 : sorted.reduce((a, b) => a + b, 0) / n },
    };
  }
}
