import { z } from 'zod';
import { endpointProblems, openAIEndpointEnv } from '../../openai-endpoint.env';
import type { EmbedderDriver } from '../../retrieval.drivers';
import { CachedEmbedder } from '../cached.embedder';
import { DEFAULT_OPENAI_EMBEDDER, OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai.embedder';

const env = {
  ...openAIEndpointEnv,
  TOOLGATE_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  TOOLGATE_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16_384).optional(),
  TOOLGATE_EMBEDDING_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
};

/** Any OpenAI-compatible embeddings endpoint; document vectors persist in the store. */
export const openAIEmbedderDriver = {
  name: 'openai',
  env,
  problems: (values) => endpointProblems(values, 'TOOLGATE_EMBEDDER=openai'),
  options: (values): { openai?: OpenAIEmbedderOptions } => ({
    openai: {
      ...DEFAULT_OPENAI_EMBEDDER,
      apiKey: values.OPENAI_API_KEY,
      baseURL: values.OPENAI_BASE_URL,
      model: values.TOOLGATE_EMBEDDING_MODEL,
      dimensions: values.TOOLGATE_EMBEDDING_DIMENSIONS,
      batchSize: values.TOOLGATE_EMBEDDING_BATCH_SIZE,
    },
  }),
  create: async (options, { embeddingStore }) => {
    const openai = { ...DEFAULT_OPENAI_EMBEDDER, ...options.openai };
    return new CachedEmbedder(new OpenAIEmbedder(openai), openai.batchSize, undefined, embeddingStore);
  },
} as const satisfies EmbedderDriver<'openai', typeof env, { openai?: OpenAIEmbedderOptions }>;
