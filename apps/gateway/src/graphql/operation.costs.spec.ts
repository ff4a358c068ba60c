import { COST, type CostContext, executePlanCost, listRunsCost, planningCost, resumeRunCost, runTaskCost, searchToolsCost } from './operation.costs';

const context: CostContext = { defaultK: 5, maxK: 50, maxSteps: 20, maxReplans: 2, defaultRunLimit: 50 };

describe('operation costs', () => {
  it('prices a search by k results, each costing what is selected of it, capped at the largest k served', () => {
    expect(searchToolsCost({ args: { input: { query: 'x' } }, childComplexity: 3, context })).toBe(COST.retrieval + 5 * 3);
    expect(searchToolsCost({ args: { input: { query: 'x', k: 20 } }, childComplexity: 3, context })).toBe(COST.retrieval + 20 * 3);
    expect(searchToolsCost({ args: { input: { query: 'x', k: 1000 } }, childComplexity: 3, context })).toBe(COST.retrieval + 50 * 3);
  });

  it('adds each image read', () => {
    const images = [
      { mimeType: 'image/png', dataBase64: 'AA==' },
      { mimeType: 'image/png', dataBase64: 'AA==' },
    ];
    expect(searchToolsCost({ args: { input: { query: '', images } }, childComplexity: 1, context })).toBe(COST.retrieval + 2 * COST.image + 5);
    expect(planningCost({ args: { task: { text: 'x', images } }, childComplexity: 4 })).toBe(COST.retrieval + COST.planning + 2 * COST.image + 4);
  });

  it('prices runTask by every step its run may take, re-plans included', () => {
    const cost = runTaskCost({ args: { task: { text: 'x' } }, childComplexity: 5, context });
    expect(cost).toBe(3 * (COST.retrieval + COST.planning) + 3 * 20 * COST.toolCall + 5);
    expect(runTaskCost({ args: { task: { text: 'x' } }, childComplexity: 5, context: { ...context, maxSteps: 5, maxReplans: 0 } })).toBe(COST.retrieval + COST.planning + 5 * COST.toolCall + 5);
  });

  it('prices executePlan by its steps, one tool call each', () => {
    const steps = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `s${i}`, tool: 'calculator/evaluate', arguments: {} }));
    expect(executePlanCost({ args: { plan: { steps: steps(3) } }, childComplexity: 2 })).toBe(3 * COST.toolCall + 2);
    expect(executePlanCost({ args: { plan: { steps: steps(1000) } }, childComplexity: 2 })).toBe(1000 * COST.toolCall + 2);
  });

  it('prices resuming a run by the steps left to run, and a listing by the runs it returns', () => {
    expect(resumeRunCost({ args: {}, childComplexity: 3, context })).toBe(20 * COST.toolCall + 3);
    expect(listRunsCost({ args: {}, childComplexity: 2, context })).toBe(1 + 50 * 2);
    expect(listRunsCost({ args: { filter: { limit: 500 } }, childComplexity: 4, context })).toBe(1 + 500 * 4);
  });
});
