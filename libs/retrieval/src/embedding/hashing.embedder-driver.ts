import type { EmbedderDriver } from '../retrieval.drivers';
import { CachedEmbedder } from './cached.embedder';
import { HashingEmbedder } from './hashing.embedder';

/** Model-free lexical vectors; cheaper to compute than to read, so never persisted. */
export const hashingEmbedderDriver = {
  name: 'hashing',
  create: async () => new CachedEmbedder(new HashingEmbedder()),
} as const satisfies EmbedderDriver<'hashing'>;
