import { z } from 'zod';
import { endpointProblems, openAIEndpointEnv } from '../openai-endpoint.env';
import type { RerankerDriver } from '../retrieval.drivers';
import { DEFAULT_LLM_RERANKER, LlmReranker, type LlmRerankerOptions } from './llm.reranker';

const env = {
  ...openAIEndpointEnv,
  TOOLGATE_RERANK_MODEL: z.string().min(1).default(DEFAULT_LLM_RERANKER.model),
  TOOLGATE_RERANK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_LLM_RERANKER.timeoutMs),
};

/** A chat model on the OpenAI-compatible endpoint reorders the fused candidates. */
export const llmRerankerDriver = {
  name: 'llm',
  env,
  problems: (values) => endpointProblems(values, 'TOOLGATE_RERANKER=llm'),
  options: (values): { llmReranker?: Partial<LlmRerankerOptions> } => ({
    llmReranker: { apiKey: values.OPENAI_API_KEY, baseURL: values.OPENAI_BASE_URL, model: values.TOOLGATE_RERANK_MODEL, timeoutMs: values.TOOLGATE_RERANK_TIMEOUT_MS },
  }),
  create: (options) => new LlmReranker(options.llmReranker),
} as const satisfies RerankerDriver<'llm', typeof env, { llmReranker?: Partial<LlmRerankerOptions> }>;
