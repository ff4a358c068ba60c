import { join } from 'node:path';
import { createRetriever } from '@toolgate/retrieval';
import { datasetsDir } from '../../../../test/support/datasets';
import { DeterministicPlanner } from '../deterministic/deterministic.planner';
import { evaluatePlanner, type PlanEvalResult } from './plan.evaluator';
import { readTaskBench } from './taskbench.reader';

/** The shared evaluation sets sit next to the repository (`../shared/datasets`), or where TOOLGATE_DATASETS says. */
const datasets = datasetsDir();

describe('plan evaluation on a slice of UltraTool test', () => {
  async function run(): Promise<PlanEvalResult> {
    const dataset = await readTaskBench(join(datasets, 'ultratool'));
    const retriever = await createRetriever({ embedder: 'none' });
    return evaluatePlanner(dataset, retriever, ({ graph }) => new DeterministicPlanner({ graph }), { split: 'test', k: 5, learn: true, usagePerTool: 40, limit: 40 });
  }

  it('scores fractions in [0,1], the same on every run', async () => {
    const first = await run();
    const second = await run();
    expect(first.samples).toBe(40);
    expect(first.trainSamples).toBeGreaterThan(3000);
    for (const value of [first.nodeF1, first.linkF1, first.accuracy, first.candidates.goldCoverage]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    // A planner that learned nothing useful would sit near the BM25 chain floor (0.475 node-F1).
    expect(first.nodeF1).toBeGreaterThan(0.5);
    expect({ node: second.nodeF1, link: second.linkF1, accuracy: second.accuracy, decisions: second.decisions }).toEqual({
      node: first.nodeF1,
      link: first.linkF1,
      accuracy: first.accuracy,
      decisions: first.decisions,
    });
  });
});
