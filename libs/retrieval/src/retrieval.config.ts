import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { defaultModelDir } from './embedding/local/onnx.embedder';
import { DEFAULT_OPENAI_EMBEDDER } from './embedding/openai/openai.embedder';
import { DEFAULT_DECOMPOSITION } from './funnel/query-decomposition';
import { DEFAULT_LLM_RERANKER } from './rerank/llm.reranker';
import type { RetrievalModuleOptions } from './retrieval.module-definition';

export const retrievalEnvSchema = z
  .object({
    TOOLGATE_INDEX: z.enum(['embedded', 'elasticsearch']).optional(),
    ELASTICSEARCH_URL: z.url().optional(),
    TOOLGATE_ES_INDEX: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lowercase Elasticsearch index name')
      .default('toolgate-tools'),
    /** The embedded profile embeds in-process (DESIGN: Profiles); `none` is BM25 only and needs no model. */
    TOOLGATE_EMBEDDER: z.enum(['local', 'none', 'hashing', 'openai']).default('local'),
    TOOLGATE_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
    TOOLGATE_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16_384).optional(),
    TOOLGATE_EMBEDDING_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    TOOLGATE_MODEL_DIR: z.string().min(1).optional(),
    /** Threads one local-model inference may use: a search waits for one query embedding, so a second core cuts its latency (~1.4x on 2 cores). */
    TOOLGATE_EMBEDDING_THREADS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(() => Math.min(4, availableParallelism())),
    TOOLGATE_SEARCH_DEFAULT_K: z.coerce.number().int().min(1).max(100).default(5),
    TOOLGATE_SEARCH_MAX_K: z.coerce.number().int().min(1).max(1000).default(50),
    TOOLGATE_RECALL_K: z.coerce.number().int().min(1).max(1000).default(50),
    TOOLGATE_FUSION_WEIGHTS: z
      .string()
      .regex(/^\d+(\.\d+)?,\d+(\.\d+)?$/, 'must be "<lexical>,<semantic>", e.g. "1,1"')
      .default('1,1'),
    TOOLGATE_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.25),
    TOOLGATE_RERANKER: z.enum(['feature', 'llm', 'none']).default('feature'),
    /** Fused candidates (per clause) the reranker reorders. */
    TOOLGATE_RERANK_DEPTH: z.coerce.number().int().min(1).max(200).default(30),
    TOOLGATE_RERANK_MODEL: z.string().min(1).default(DEFAULT_LLM_RERANKER.model),
    TOOLGATE_RERANK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_LLM_RERANKER.timeoutMs),
    /** Split multi-part requests into clauses searched one by one. */
    TOOLGATE_QUERY_DECOMPOSITION: z.enum(['on', 'off']).default('on'),
  })
  .refine((env) => env.TOOLGATE_INDEX !== 'elasticsearch' || env.ELASTICSEARCH_URL !== undefined, { path: ['ELASTICSEARCH_URL'], message: 'is required when TOOLGATE_INDEX=elasticsearch' })
  .refine((env) => env.TOOLGATE_EMBEDDER !== 'openai' || env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined, {
    path: ['OPENAI_API_KEY'],
    message: 'is required when TOOLGATE_EMBEDDER=openai (or OPENAI_BASE_URL for a server that needs no key)',
  })
  .refine((env) => env.TOOLGATE_RERANKER !== 'llm' || env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined, {
    path: ['OPENAI_API_KEY'],
    message: 'is required when TOOLGATE_RERANKER=llm (or OPENAI_BASE_URL for a server that needs no key)',
  });
export type RetrievalEnv = z.infer<typeof retrievalEnvSchema>;

export function retrievalOptionsFromEnv(env: RetrievalEnv): RetrievalModuleOptions {
  const [lexical, semantic] = env.TOOLGATE_FUSION_WEIGHTS.split(',').map(Number);
  return {
    // ELASTICSEARCH_URL alone switches the index to Elasticsearch, as in the production profile.
    driver: env.TOOLGATE_INDEX ?? (env.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded'),
    elasticsearch: env.ELASTICSEARCH_URL ? { node: env.ELASTICSEARCH_URL, indexPrefix: env.TOOLGATE_ES_INDEX } : undefined,
    embedder: env.TOOLGATE_EMBEDDER,
    modelDir: defaultModelDir({ ...process.env, TOOLGATE_MODEL_DIR: env.TOOLGATE_MODEL_DIR }),
    modelThreads: env.TOOLGATE_EMBEDDING_THREADS,
    openai: {
      ...DEFAULT_OPENAI_EMBEDDER,
      apiKey: env.OPENAI_API_KEY,
      baseURL: env.OPENAI_BASE_URL,
      model: env.TOOLGATE_EMBEDDING_MODEL,
      dimensions: env.TOOLGATE_EMBEDDING_DIMENSIONS,
      batchSize: env.TOOLGATE_EMBEDDING_BATCH_SIZE,
    },
    funnel: {
      recallK: env.TOOLGATE_RECALL_K,
      weights: { lexical, semantic },
      rrfK: 60,
      minSimilarity: env.TOOLGATE_MIN_SIMILARITY,
      rerankDepth: env.TOOLGATE_RERANK_DEPTH,
      decomposition: env.TOOLGATE_QUERY_DECOMPOSITION === 'on' ? DEFAULT_DECOMPOSITION : null,
    },
    reranker: env.TOOLGATE_RERANKER,
    llmReranker: { apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, model: env.TOOLGATE_RERANK_MODEL, timeoutMs: env.TOOLGATE_RERANK_TIMEOUT_MS },
    defaultK: env.TOOLGATE_SEARCH_DEFAULT_K,
    maxK: env.TOOLGATE_SEARCH_MAX_K,
  };
}
