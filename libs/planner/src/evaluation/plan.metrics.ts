import { percentile } from '@toolgate/retrieval/evaluation';

/** A plan reduced to what TaskBench scores: tool names and (source, target) links. */
export interface PlanGraph {
  nodes: string[];
  links: [string, string][];
}

/**
 * F1 of two sets, as the published TaskBench evaluation (GNN4TaskPlan's evaluate.py) scores it: an
 * empty side scores 0, two empty sets included, so a plan with no links never earns link credit.
 */
export function setF1(predicted: readonly string[], gold: readonly string[]): number {
  const p = new Set(predicted);
  const g = new Set(gold);
  if (p.size === 0 || g.size === 0) return 0;
  let hits = 0;
  for (const x of p) if (g.has(x)) hits++;
  return hits === 0 ? 0 : (2 * hits) / (p.size + g.size);
}

export const nodeF1 = (predicted: PlanGraph, gold: PlanGraph): number => setF1(predicted.nodes, gold.nodes);

const linkKeys = (links: readonly [string, string][]) => links.map(([s, t]) => `${s}\u0000${t}`);
export const linkF1 = (predicted: PlanGraph, gold: PlanGraph): number => setF1(linkKeys(predicted.links), linkKeys(gold.links));

/** The same members, order and repeats aside. */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** The exact set of tools, order and links aside. */
export const sameNodes = (predicted: PlanGraph, gold: PlanGraph): boolean => sameSet(predicted.nodes, gold.nodes);

/** Median, 95th percentile and mean of measured latencies (0 for none). */
export function latencySummary(latencies: readonly number[]): { p50: number; p95: number; mean: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean: sorted.length === 0 ? 0 : sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

export interface PlanReport {
  samples: number;
  /** Samples whose gold plan has two or more steps: the only ones link-F1 is averaged over. */
  multiStepSamples: number;
  /** Macro means in [0,1]: node-F1 and accuracy over every sample, link-F1 over multi-step samples (0 when there are none). */
  nodeF1: number;
  linkF1: number;
  accuracy: number;
  latencyMs: { p50: number; p95: number; mean: number };
}

export interface SampleScore {
  node: number;
  /** Undefined for a single-tool gold plan: it has no links to find, and scoring it would reward predicting none. */
  link: number | undefined;
  exact: number;
}

/** Accumulates per-sample scores (macro average, as TaskBench does) and latencies. */
export class PlanScorer {
  private readonly scores: SampleScore[] = [];
  private readonly latencies: number[] = [];

  /** Scores one sample and keeps it; returns its scores. */
  add(predicted: PlanGraph, gold: PlanGraph, latencyMs: number): SampleScore {
    // Steps, not distinct tools: a task that calls one tool twice is multi-step too.
    const multiStep = gold.nodes.length >= 2;
    const score = { node: nodeF1(predicted, gold), link: multiStep ? linkF1(predicted, gold) : undefined, exact: sameNodes(predicted, gold) ? 1 : 0 };
    this.scores.push(score);
    this.latencies.push(latencyMs);
    return score;
  }

  report(): PlanReport {
    const n = this.scores.length;
    const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length);
    const links = this.scores.flatMap((s) => (s.link === undefined ? [] : [s.link]));
    return {
      samples: n,
      multiStepSamples: links.length,
      nodeF1: mean(this.scores.map((s) => s.node)),
      linkF1: mean(links),
      accuracy: mean(this.scores.map((s) => s.exact)),
      latencyMs: latencySummary(this.latencies),
    };
  }
}
