import { join } from 'node:path';
import { createRetriever, defaultModelDir } from '@toolgate/retrieval';
import { evaluateRetrieval, readEvalQueries, readEvalTools } from '@toolgate/retrieval/evaluation';

/** The bundled tools and requests in Chinese (test/fixtures/retrieval-zh), through the whole funnel with the real local model. */
describe('retrieval in Chinese', () => {
  const fixture = join(__dirname, '..', 'fixtures', 'retrieval-zh');

  it.each(['local', 'none'] as const)('finds the tools a Chinese request needs in the top 3 (embedder %s)', async (embedder) => {
    const retriever = await createRetriever({ embedder, modelDir: defaultModelDir(), reranker: 'feature' });
    try {
      const tools = await readEvalTools(join(fixture, 'tools.jsonl'));
      const queries = await readEvalQueries(join(fixture, 'queries.jsonl'), new Set(tools.map((t) => t.id)));
      const { metrics, queries: scored } = await evaluateRetrieval(retriever, tools, queries, { split: 'test', ks: [1, 3, 5] });
      expect(scored).toBe(34);
      expect(metrics['recall@3']).toBeGreaterThanOrEqual(0.9);
    } finally {
      await retriever.embedder?.close();
    }
  });
});
