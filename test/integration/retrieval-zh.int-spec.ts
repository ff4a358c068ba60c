import { join } from 'node:path';
import { createRetriever, defaultModelDir, type LocalModelName } from '@toolgate/retrieval';
import { evaluateRetrieval, readEvalQueries, readEvalTools } from '@toolgate/retrieval/evaluation';

/** The bundled tools and requests in Chinese (test/fixtures/retrieval-zh), through the whole funnel with the real local model. */
describe('retrieval in Chinese', () => {
  const fixture = join(__dirname, '..', 'fixtures', 'retrieval-zh');

  const recallAt3 = async (embedder: 'local' | 'none', model?: LocalModelName) => {
    const retriever = await createRetriever({ embedder, modelDir: defaultModelDir({ ...process.env, TOOLGATE_LOCAL_MODEL: model }), reranker: 'feature' });
    try {
      const tools = await readEvalTools(join(fixture, 'tools.jsonl'));
      const queries = await readEvalQueries(join(fixture, 'queries.jsonl'), new Set(tools.map((t) => t.id)));
      const { metrics, queries: scored } = await evaluateRetrieval(retriever, tools, queries, { split: 'test', ks: [1, 3, 5] });
      expect(scored).toBe(34);
      return metrics['recall@3'];
    } finally {
      await retriever.embedder?.close();
    }
  };

  it.each(['local', 'none'] as const)('finds the tools a Chinese request needs in the top 3 (embedder %s, the default English model)', async (embedder) => {
    expect(await recallAt3(embedder, 'all-MiniLM-L6-v2')).toBeGreaterThanOrEqual(0.9);
  });

  it('finds more of them with the Chinese model than the words alone do', async () => {
    // Words alone (and the English model, which is not asked about CJK text) find 32 of the 34 requests' tools.
    const words = await recallAt3('none');
    const chinese = await recallAt3('local', 'bge-small-zh-v1.5');
    expect(chinese).toBeGreaterThanOrEqual(0.95);
    expect(chinese).toBeGreaterThan(words);
  });
});
