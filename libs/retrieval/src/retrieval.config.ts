import { chooseDriver, driverEnv, driverNames, driverOptions, driverProblems } from '@toolgate/sdk';
import { z } from 'zod';
import { EMBEDDER_DRIVERS } from './embedding/embedder.drivers';
import { DEFAULT_COMPANIONS } from './funnel/companion.expander';
import { DEFAULT_DECOMPOSITION } from './funnel/query.decomposer';
import { DEFAULT_WARMUP } from './funnel/tool.retriever';
import { TOOL_INDEX_DRIVERS } from './index/tool-index.drivers';
import { RERANKER_DRIVERS } from './rerank/reranker.drivers';
import type { RetrievalModuleOptions } from './retrieval.module-definition';

const indexDriver = (env: { TOOLGATE_INDEX?: string; ELASTICSEARCH_URL?: string }) => chooseDriver(TOOL_INDEX_DRIVERS, env, env.TOOLGATE_INDEX, 'embedded');

export const retrievalEnvSchema = z
  .object({
    TOOLGATE_INDEX: z.enum(driverNames(TOOL_INDEX_DRIVERS)).optional(),
    /** The embedded profile embeds in-process (DESIGN: Profiles); `none` is BM25 only and needs no model. */
    TOOLGATE_EMBEDDER: z.enum(driverNames(EMBEDDER_DRIVERS)).default('local'),
    TOOLGATE_RERANKER: z.enum(driverNames(RERANKER_DRIVERS)).default('feature'),
    ...driverEnv(TOOL_INDEX_DRIVERS),
    ...driverEnv(EMBEDDER_DRIVERS),
    ...driverEnv(RERANKER_DRIVERS),
    TOOLGATE_SEARCH_DEFAULT_K: z.coerce.number().int().min(1).max(100).default(5),
    TOOLGATE_SEARCH_MAX_K: z.coerce.number().int().min(1).max(1000).default(50),
    TOOLGATE_RECALL_K: z.coerce.number().int().min(1).max(1000).default(50),
    TOOLGATE_FUSION_WEIGHTS: z
      .string()
      .regex(/^\d+(\.\d+)?,\d+(\.\d+)?$/, 'must be "<lexical>,<semantic>", e.g. "1,1"')
      .default('1,1'),
    TOOLGATE_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.25),
    /** Fused candidates (per clause) the reranker reorders. */
    TOOLGATE_RERANK_DEPTH: z.coerce.number().int().min(1).max(200).default(30),
    /** Split multi-part requests into clauses searched one by one. */
    TOOLGATE_QUERY_DECOMPOSITION: z.enum(['on', 'off']).default('on'),
    /** The strongest candidates pull in the tools they are learned to be used with (usage files, a tenant's runs). */
    TOOLGATE_COMPANIONS: z.enum(['on', 'off']).default('on'),
    /** While vectors are computed: `degraded` answers from BM25 and the vectors there are, saying so; `wait` holds searches for them. */
    TOOLGATE_SEARCH_WARMUP: z.enum(['degraded', 'wait']).default(DEFAULT_WARMUP.mode),
    /** The longest a search waits for a warming index before INDEX_UNAVAILABLE. */
    TOOLGATE_SEARCH_WARMUP_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(DEFAULT_WARMUP.waitMs),
  })
  .superRefine((env, ctx) => {
    // What the chosen drivers need from the environment.
    const problems = [
      ...driverProblems(TOOL_INDEX_DRIVERS, indexDriver(env), env),
      ...driverProblems(EMBEDDER_DRIVERS, env.TOOLGATE_EMBEDDER, env),
      ...driverProblems(RERANKER_DRIVERS, env.TOOLGATE_RERANKER, env),
    ];
    for (const problem of problems) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
  });
export type RetrievalEnv = z.infer<typeof retrievalEnvSchema>;

export function retrievalOptionsFromEnv(env: RetrievalEnv): RetrievalModuleOptions {
  const [lexical, semantic] = env.TOOLGATE_FUSION_WEIGHTS.split(',').map(Number);
  return {
    driver: indexDriver(env),
    embedder: env.TOOLGATE_EMBEDDER,
    ...driverOptions(TOOL_INDEX_DRIVERS, env),
    ...driverOptions(EMBEDDER_DRIVERS, env),
    funnel: {
      recallK: env.TOOLGATE_RECALL_K,
      weights: { lexical, semantic },
      rrfK: 60,
      minSimilarity: env.TOOLGATE_MIN_SIMILARITY,
      rerankDepth: env.TOOLGATE_RERANK_DEPTH,
      decomposition: env.TOOLGATE_QUERY_DECOMPOSITION === 'on' ? DEFAULT_DECOMPOSITION : null,
      companions: env.TOOLGATE_COMPANIONS === 'on' ? DEFAULT_COMPANIONS : null,
    },
    reranker: env.TOOLGATE_RERANKER,
    ...driverOptions(RERANKER_DRIVERS, env),
    defaultK: env.TOOLGATE_SEARCH_DEFAULT_K,
    maxK: env.TOOLGATE_SEARCH_MAX_K,
    warmup: { mode: env.TOOLGATE_SEARCH_WARMUP, waitMs: env.TOOLGATE_SEARCH_WARMUP_WAIT_MS },
  };
}
