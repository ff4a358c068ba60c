import { EmbeddedToolIndex } from '../embedded/embedded-tool-index';
import { CachedEmbedder } from '../embedding/cached.embedder';
import type { Embedder } from '../embedding/embedder.port';
import { HashingEmbedder } from '../embedding/hashing.embedder';
import { DEFAULT_FUNNEL, ToolRetriever } from '../funnel/tool-retriever';
import type { RetrievalModuleOptions } from '../retrieval.module-definition';
import type { ToolIndex } from './tool-index.port';

/** A new, empty index of the configured driver (the app's catalog index, or a scratch one for evaluation). */
export function createToolIndex(options: Pick<RetrievalModuleOptions, 'driver'>): ToolIndex {
  switch (options.driver) {
    case 'embedded':
      return new EmbeddedToolIndex();
  }
}

export function createEmbedder(options: Pick<RetrievalModuleOptions, 'embedder'>): Embedder | null {
  switch (options.embedder) {
    case 'none':
      return null;
    case 'hashing':
      return new CachedEmbedder(new HashingEmbedder());
  }
}

export function createRetriever(options: Partial<Pick<RetrievalModuleOptions, 'driver' | 'embedder' | 'funnel'>> = {}): ToolRetriever {
  return new ToolRetriever(createToolIndex({ driver: options.driver ?? 'embedded' }), createEmbedder({ embedder: options.embedder ?? 'none' }), options.funnel ?? DEFAULT_FUNNEL);
}
