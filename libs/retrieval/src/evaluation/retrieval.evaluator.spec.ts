import { ErrorCode } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';
import { EmbeddedToolIndex } from '../embedded/embedded.tool-index';
import { ToolRetriever } from '../funnel/tool.retriever';
import type { IndexedTool } from '../index/tool-index.port';
import type { EvalQuery, EvalTool } from './eval-dataset.reader';
import { evaluateRetrieval, type RetrievalQueryRecord } from './retrieval.evaluator';

const tools: EvalTool[] = [
  { id: 'weather', name: 'weather', description: 'Forecast of rain and sun for a city' },
  { id: 'stocks', name: 'stocks', description: 'Share prices and market quotes' },
];
const queries: EvalQuery[] = [
  { qid: 'q1', query: 'will it rain in Paris', gold: ['weather'], split: 'test' },
  { qid: 'q2', query: 'price of AAPL shares', gold: ['stocks'], split: 'test' },
  { qid: 'q3', query: 'do I need an umbrella', gold: ['weather'], split: 'train' },
];

/** Records what reaches the index, to prove scored queries never do. */
class SpyIndex extends EmbeddedToolIndex {
  readonly upserted: ToolDocument[] = [];
  override async upsert(tools: IndexedTool[], model: string): Promise<void> {
    this.upserted.push(...tools.map((t) => t.doc));
    return super.upsert(tools, model);
  }
}
const over = (index: EmbeddedToolIndex) => new ToolRetriever(index, null);

describe('evaluateRetrieval', () => {
  it('scores the split and learns only from the training split', async () => {
    const index = new SpyIndex();
    const result = await evaluateRetrieval(over(index), tools, queries, { split: 'test', trainSplit: 'train', ks: [1, 5] });
    expect(result).toMatchObject({ queries: 2, trainQueries: 1, metrics: { 'recall@1': 1, mrr: 1 } });
    const learned = index.upserted.flatMap((d) => d.usageQueries);
    expect(learned).toEqual(['do I need an umbrella']);
  });

  it('reports each scored query with its hits and where its gold tools ranked', async () => {
    const records: RetrievalQueryRecord[] = [];
    await evaluateRetrieval(over(new EmbeddedToolIndex()), tools, [...queries, { qid: 'q4', query: 'umbrella', gold: ['stocks', 'weather'], split: 'test' }], {
      split: 'test',
      ks: [5],
      onQuery: (record) => records.push(record),
    });
    expect(records.map((r) => r.qid)).toEqual(['q1', 'q2', 'q4']);
    expect(records[0]).toEqual({ qid: 'q1', query: 'will it rain in Paris', gold: ['weather'], hits: ['weather'], goldRanks: [1] });
    // "umbrella" is in neither tool's words: no gold tool among the hits.
    expect(records[2]).toMatchObject({ hits: [], goldRanks: [null, null] });
  });

  it('splits a set by a seeded draw, the same way every time, never scoring a training query', async () => {
    const many: EvalQuery[] = Array.from({ length: 200 }, (_, i) => ({ qid: `q${i}`, query: `rain forecast ${i}`, gold: ['weather'], split: 'all' }));
    const first = new SpyIndex();
    const a = await evaluateRetrieval(over(first), tools, many, { split: 'all', trainFraction: 0.8, seed: 7, ks: [5] });
    const b = await evaluateRetrieval(over(new SpyIndex()), tools, many, { split: 'all', trainFraction: 0.8, seed: 7, ks: [5] });
    expect(a.trainQueries).toBe(b.trainQueries);
    expect(a.trainQueries + a.queries).toBe(200);
    expect(a.trainQueries).toBeGreaterThan(140);
    expect(a.trainQueries).toBeLessThan(180);
    // Every training query is usage evidence: none is capped away.
    const learned = new Set(first.upserted.flatMap((d) => d.usageQueries));
    expect(learned.size).toBe(a.trainQueries);
  });

  it('names an unknown split and refuses to train on the scored split', async () => {
    await expect(evaluateRetrieval(over(new EmbeddedToolIndex()), tools, queries, { split: 'dev', ks: [5] })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      message: expect.stringContaining('splits: test, train'),
    });
    await expect(evaluateRetrieval(over(new EmbeddedToolIndex()), tools, queries, { split: 'test', trainSplit: 'test', ks: [5] })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
  });
  it('scores the tuning draw and the holdout as disjoint parts that together make the split', async () => {
    const many: EvalQuery[] = Array.from({ length: 200 }, (_, i) => ({ qid: `q${i}`, query: `rain forecast ${i}`, gold: ['weather'], split: 'all' }));
    const run = (score: 'tuning' | 'holdout') => evaluateRetrieval(over(new EmbeddedToolIndex()), tools, many, { split: 'all', seed: 7, tuning: { fraction: 0.2, score }, ks: [1] });
    const [tuning, holdout] = await Promise.all([run('tuning'), run('holdout')]);
    expect(tuning.queries + holdout.queries).toBe(200);
    expect(tuning.queries).toBeGreaterThan(20);
    expect(tuning.queries).toBeLessThan(60);
    expect(tuning.trainQueries).toBe(0);
    expect((await run('tuning')).queries).toBe(tuning.queries);
  });
});
