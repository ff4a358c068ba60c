import { z } from 'zod';
import type { RetrievalModuleOptions } from './retrieval.module-definition';

export const retrievalEnvSchema = z.object({
  TOOLGATE_INDEX: z.enum(['embedded']).default('embedded'),
  TOOLGATE_SEARCH_DEFAULT_K: z.coerce.number().int().min(1).max(100).default(5),
  TOOLGATE_SEARCH_MAX_K: z.coerce.number().int().min(1).max(1000).default(50),
});
export type RetrievalEnv = z.infer<typeof retrievalEnvSchema>;

export const retrievalOptionsFromEnv = (env: RetrievalEnv): RetrievalModuleOptions => ({
  driver: env.TOOLGATE_INDEX,
  defaultK: env.TOOLGATE_SEARCH_DEFAULT_K,
  maxK: env.TOOLGATE_SEARCH_MAX_K,
});
