import { featureRerankerDriver, noRerankerDriver } from './feature.reranker-driver';
import { llmRerankerDriver } from './llm.reranker-driver';

/** The rerank stages (TOOLGATE_RERANKER), one line each; the first is the default. */
export const RERANKER_DRIVERS = [featureRerankerDriver, llmRerankerDriver, noRerankerDriver] as const;
