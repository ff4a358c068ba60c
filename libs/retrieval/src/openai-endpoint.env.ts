import { z } from 'zod';

/** The OpenAI-compatible endpoint the openai embedder and the llm reranker share. */
export const openAIEndpointEnv = {
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
};

/** A key, or a base URL for a server that needs none; named as the variable that selected the driver. */
export const endpointProblems = (values: { OPENAI_API_KEY?: string; OPENAI_BASE_URL?: string }, selectedBy: string) =>
  values.OPENAI_API_KEY === undefined && values.OPENAI_BASE_URL === undefined
    ? [{ path: 'OPENAI_API_KEY', message: `is required when ${selectedBy} (or OPENAI_BASE_URL for a server that needs no key)` }]
    : [];
