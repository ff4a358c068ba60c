import { Bm25ToolIndex } from '../embedded/bm25-tool-index';
import type { RetrievalModuleOptions } from '../retrieval.module-definition';
import type { ToolIndex } from './tool-index.port';

/** A new, empty index of the configured driver (the app's catalog index, or a scratch one for evaluation). */
export function createToolIndex(options: Pick<RetrievalModuleOptions, 'driver'>): ToolIndex {
  switch (options.driver) {
    case 'embedded':
      return new Bm25ToolIndex();
  }
}
