import { z } from 'zod';
import type { RetrievalModuleOptions } from './retrieval.module-definition';

export const retrievalEnvSchema = z.object({
  TOOLGATE_INDEX: z.enum(['embedded']).default('embedded'),
  TOOLGATE_EMBEDDER: z.enum(['none', 'hashing']).default('none'),
  TOOLGATE_SEARCH_DEFAULT_K: z.coerce.number().int().min(1).max(100).default(5),
  TOOLGATE_SEARCH_MAX_K: z.coerce.number().int().min(1).max(1000).default(50),
  TOOLGATE_RECALL_K: z.coerce.number().int().min(1).max(1000).default(50),
  TOOLGATE_FUSION_WEIGHTS: z
    .string()
    .regex(/^\d+(\.\d+)?,\d+(\.\d+)?$/, 'must be "<lexical>,<semantic>", e.g. "1,1"')
    .default('1,1'),
  TOOLGATE_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.25),
});
export type RetrievalEnv = z.infer<typeof retrievalEnvSchema>;

export function retrievalOptionsFromEnv(env: RetrievalEnv): RetrievalModuleOptions {
  const [lexical, semantic] = env.TOOLGATE_FUSION_WEIGHTS.split(',').map(Number);
  return {
    driver: env.TOOLGATE_INDEX,
    embedder: env.TOOLGATE_EMBEDDER,
    funnel: { recallK: env.TOOLGATE_RECALL_K, weights: { lexical, semantic }, rrfK: 60, minSimilarity: env.TOOLGATE_MIN_SIMILARITY },
    defaultK: env.TOOLGATE_SEARCH_DEFAULT_K,
    maxK: env.TOOLGATE_SEARCH_MAX_K,
  };
}
