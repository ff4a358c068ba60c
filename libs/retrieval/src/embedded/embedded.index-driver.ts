import type { ToolIndexDriver } from '../retrieval.drivers';
import { EmbeddedToolIndex } from './embedded.tool-index';

/** In-process BM25 + int8 vectors: the zero-config default. */
export const embeddedIndexDriver = {
  name: 'embedded',
  create: () => new EmbeddedToolIndex(),
} as const satisfies ToolIndexDriver<'embedded'>;
