import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defaultModelDir } from './embedding/local/onnx.embedder';
import { DEFAULT_DECOMPOSITION } from './funnel/query.decomposer';
import { retrievalEnvSchema, retrievalOptionsFromEnv } from './retrieval.config';

describe('retrieval config: embedder', () => {
  it('embeds with the local model by default, from the fetched model folder or TOOLGATE_MODEL_DIR', () => {
    const options = retrievalOptionsFromEnv(retrievalEnvSchema.parse({}));
    expect(options).toMatchObject({ driver: 'embedded', embedder: 'local' });
    expect(options.modelDir).toBe(defaultModelDir(process.env));
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_MODEL_DIR: '/opt/models' })).modelDir).toBe(join('/opt/models', 'all-MiniLM-L6-v2'));
  });

  it('reads the Chinese model from its own folder when TOOLGATE_LOCAL_MODEL names it, and refuses a model it cannot fetch', () => {
    const chinese = retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_MODEL_DIR: '/opt/models', TOOLGATE_LOCAL_MODEL: 'bge-small-zh-v1.5' }));
    expect(chinese.modelDir).toBe(join('/opt/models', 'bge-small-zh-v1.5'));
    const unknown = retrievalEnvSchema.safeParse({ TOOLGATE_LOCAL_MODEL: '../../etc' });
    expect(unknown.error?.issues).toEqual([expect.objectContaining({ path: ['TOOLGATE_LOCAL_MODEL'], message: expect.stringContaining('all-MiniLM-L6-v2') })]);
  });

  it('reads an ensemble as its first model plus the others, and refuses a repeated or unknown member', () => {
    const options = retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_MODEL_DIR: '/opt/models', TOOLGATE_LOCAL_MODEL: 'all-MiniLM-L6-v2+bge-small-en-v1.5' }));
    expect([options.modelDir, options.ensembleDirs]).toEqual([join('/opt/models', 'all-MiniLM-L6-v2'), [join('/opt/models', 'bge-small-en-v1.5')]]);
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({})).ensembleDirs).toBeUndefined();
    for (const bad of ['all-MiniLM-L6-v2+all-MiniLM-L6-v2', 'all-MiniLM-L6-v2+mpnet', 'all-MiniLM-L6-v2+']) {
      expect(retrievalEnvSchema.safeParse({ TOOLGATE_LOCAL_MODEL: bad }).error?.issues.map((issue) => issue.path)).toEqual([['TOOLGATE_LOCAL_MODEL']]);
    }
  });

  it('gives one query embedding one thread, or TOOLGATE_EMBEDDING_THREADS', () => {
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({})).modelThreads).toBe(1);
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_EMBEDDING_THREADS: '3' })).modelThreads).toBe(3);
    expect(retrievalEnvSchema.safeParse({ TOOLGATE_EMBEDDING_THREADS: '0' }).error?.issues.map((issue) => issue.path)).toEqual([['TOOLGATE_EMBEDDING_THREADS']]);
  });

  it('lets the model use up to one worker per core, two at most by default, or TOOLGATE_EMBEDDING_WORKERS', () => {
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({})).modelWorkers).toBe(Math.min(2, availableParallelism()));
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_EMBEDDING_WORKERS: '1' })).modelWorkers).toBe(1);
    expect(retrievalEnvSchema.safeParse({ TOOLGATE_EMBEDDING_WORKERS: 'many' }).error?.issues.map((issue) => issue.path)).toEqual([['TOOLGATE_EMBEDDING_WORKERS']]);
  });

  it('keeps BM25-only and the model-free embedders available', () => {
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_EMBEDDER: 'none' })).embedder).toBe('none');
    expect(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_EMBEDDER: 'hashing' })).embedder).toBe('hashing');
    const unknown = retrievalEnvSchema.safeParse({ TOOLGATE_EMBEDDER: 'onnx' });
    expect(unknown.error?.issues.map((issue) => issue.path)).toEqual([['TOOLGATE_EMBEDDER']]);
  });
});

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
