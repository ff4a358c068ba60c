import type { EmbedderDriver } from '../retrieval.drivers';

/** No embedder: BM25 only, no model needed. */
export const noEmbedderDriver = { name: 'none', create: async () => null } as const satisfies EmbedderDriver<'none'>;
