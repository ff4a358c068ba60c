import { linkF1, nodeF1, PlanScorer, sameNodes, setF1 } from './plan.metrics';

describe('plan metrics', () => {
  const gold = {
    nodes: ['a', 'b', 'c'],
    links: [
      ['a', 'b'],
      ['b', 'c'],
    ] as [string, string][],
  };

  it('computes set F1 by hand', () => {
    // 2 of 3 predicted are right, 2 of 3 gold found: P = R = 2/3.
    expect(nodeF1({ nodes: ['a', 'b', 'x'], links: [] }, gold)).toBeCloseTo(2 / 3);
    // 1 of 1 predicted link is right, 1 of 2 gold: P = 1, R = 0.5, F1 = 2/3.
    expect(linkF1({ nodes: [], links: [['a', 'b']] }, gold)).toBeCloseTo(2 / 3);
    expect(linkF1({ nodes: [], links: [['b', 'a']] }, gold)).toBe(0);
    // The published protocol: an empty side scores 0, two empty sets included.
    expect(setF1([], [])).toBe(0);
    expect(setF1([], ['a'])).toBe(0);
    expect(setF1(['a'], [])).toBe(0);
    expect(setF1(['a', 'a'], ['a'])).toBe(1);
  });

  it('counts exact node sets whatever the order', () => {
    expect(sameNodes({ nodes: ['c', 'b', 'a'], links: [] }, gold)).toBe(true);
    expect(sameNodes({ nodes: ['a', 'b'], links: [] }, gold)).toBe(false);
  });

  it('averages over samples (macro) and reports latency percentiles', () => {
    const scorer = new PlanScorer();
    scorer.add(
      {
        nodes: ['a', 'b', 'c'],
        links: [
          ['a', 'b'],
          ['b', 'c'],
        ],
      },
      gold,
      1,
    );
    scorer.add({ nodes: ['a'], links: [] }, gold, 3);
    const report = scorer.report();
    expect(report.samples).toBe(2);
    expect(report.multiStepSamples).toBe(2);
    // Sample 2: node F1 = 2*1/(1+3) = 0.5, link F1 = 0.
    expect(report.nodeF1).toBeCloseTo(0.75);
    expect(report.linkF1).toBeCloseTo(0.5);
    expect(report.accuracy).toBeCloseTo(0.5);
    expect(report.latencyMs).toEqual({ p50: 1, p95: 3, mean: 2 });
  });

  it('averages link-F1 over multi-step gold plans only, and gives an empty plan nothing', () => {
    const scorer = new PlanScorer();
    // A single-tool task predicted right: node credit, no link score at all (not a free 1).
    scorer.add({ nodes: ['a'], links: [] }, { nodes: ['a'], links: [] }, 1);
    // A two-tool task predicted as parallel calls of both: nodes right, the link missed.
    scorer.add({ nodes: ['a', 'b'], links: [] }, { nodes: ['a', 'b'], links: [['a', 'b']] }, 1);
    // A three-tool task planned as nothing.
    scorer.add({ nodes: [], links: [] }, gold, 1);
    // One tool called twice is two steps: its link counts.
    scorer.add({ nodes: ['a', 'a'], links: [['a', 'a']] }, { nodes: ['a', 'a'], links: [['a', 'a']] }, 1);
    const report = scorer.report();
    expect(report.samples).toBe(4);
    expect(report.multiStepSamples).toBe(3);
    expect(report.nodeF1).toBeCloseTo((1 + 1 + 0 + 1) / 4);
    expect(report.linkF1).toBeCloseTo((0 + 0 + 1) / 3);
    expect(report.accuracy).toBeCloseTo(3 / 4);
  });

  it('reports zeros, not NaN, for no samples', () => {
    expect(new PlanScorer().report()).toMatchObject({ samples: 0, multiStepSamples: 0, nodeF1: 0, linkF1: 0, accuracy: 0 });
  });
});
