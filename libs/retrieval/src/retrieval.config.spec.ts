import { DEFAULT_DECOMPOSITION } from './funnel/query-decomposition';
import { retrievalEnvSchema, retrievalOptionsFromEnv } from './retrieval.config';

describe('retrieval config: rerank stage and clauses', () => {
  it('reranks with features and splits multi-part queries by default', () => {
    const options = retrievalOptionsFromEnv(retrievalEnvSchema.parse({}));
    expect(options.reranker).toBe('feature');
    expect(options.funnel).toMatchObject({ rerankDepth: 30, decomposition: DEFAULT_DECOMPOSITION });
  });

  it('configures the LLM reranker from the OpenAI-compatible endpoint settings', () => {
    const env = retrievalEnvSchema.parse({
      TOOLGATE_RERANKER: 'llm',
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      TOOLGATE_RERANK_MODEL: 'qwen2.5-7b',
      TOOLGATE_RERANK_TIMEOUT_MS: '2500',
      TOOLGATE_RERANK_DEPTH: '15',
      TOOLGATE_QUERY_DECOMPOSITION: 'off',
    });
    const options = retrievalOptionsFromEnv(env);
    expect(options.reranker).toBe('llm');
    expect(options.llmReranker).toEqual({ apiKey: undefined, baseURL: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b', timeoutMs: 2500 });
    expect(options.funnel).toMatchObject({ rerankDepth: 15, decomposition: null });
  });

  it('names what is wrong: an unknown reranker, or the LLM reranker with no endpoint', () => {
    const unknown = retrievalEnvSchema.safeParse({ TOOLGATE_RERANKER: 'cross-encoder' });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0].path).toEqual(['TOOLGATE_RERANKER']);
    const keyless = retrievalEnvSchema.safeParse({ TOOLGATE_RERANKER: 'llm' });
    expect(keyless.error?.issues).toEqual([expect.objectContaining({ path: ['OPENAI_API_KEY'], message: expect.stringContaining('TOOLGATE_RERANKER=llm') })]);
  });
});
