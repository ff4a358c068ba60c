import type { RerankerDriver } from '../retrieval.drivers';
import { FeatureReranker } from './feature.reranker';

/** Lexical features over the fused candidates: the default rerank stage. */
export const featureRerankerDriver = { name: 'feature', create: () => new FeatureReranker() } as const satisfies RerankerDriver<'feature'>;

/** No rerank stage: the fused order stands. */
export const noRerankerDriver = { name: 'none', create: () => null } as const satisfies RerankerDriver<'none'>;
