import { driverNamed } from '@toolgate/sdk';
import { EMBEDDER_DRIVERS } from '../embedding/embedder.drivers';
import type { Embedder } from '../embedding/embedder.port';
import { DEFAULT_FUNNEL, ToolRetriever } from '../funnel/tool.retriever';
import { RERANKER_DRIVERS } from '../rerank/reranker.drivers';
import type { Reranker } from '../rerank/reranker.port';
import type { RetrievalModuleOptions } from '../retrieval.module-definition';
import { TOOL_INDEX_DRIVERS } from './tool-index.drivers';
import type { ToolIndex } from './tool-index.port';

/** What a factory may be given: the driver names it needs, and any driver's settings. */
type Selection<K extends keyof RetrievalModuleOptions> = Pick<RetrievalModuleOptions, K> & Partial<RetrievalModuleOptions>;

/** A new, empty index of the configured driver (the app's catalog index, or a scratch one for evaluation). */
export function createToolIndex(options: Selection<'driver'>): ToolIndex {
  const driver: { create(options: Partial<RetrievalModuleOptions>): ToolIndex } = driverNamed('TOOLGATE_INDEX', TOOL_INDEX_DRIVERS, options.driver);
  return driver.create(options);
}

/**
 * The configured embedder, cached and batched; null for lexical-only retrieval. Loads (and verifies) a local model.
 * A model that costs time or money (local, openai) keeps document vectors in `embeddingStore` when one is given.
 */
export function createEmbedder(options: Selection<'embedder'>): Promise<Embedder | null> {
  const driver: { create(options: Partial<RetrievalModuleOptions>, deps: { embeddingStore?: RetrievalModuleOptions['embeddingStore'] }): Promise<Embedder | null> } = driverNamed(
    'TOOLGATE_EMBEDDER',
    EMBEDDER_DRIVERS,
    options.embedder,
  );
  return driver.create(options, { embeddingStore: options.embeddingStore });
}

/** The configured rerank stage (feature reranker when unset); null keeps the fused order. */
export function createReranker(options: Partial<RetrievalModuleOptions>): Reranker | null {
  const driver: { create(options: Partial<RetrievalModuleOptions>): Reranker | null } = driverNamed('TOOLGATE_RERANKER', RERANKER_DRIVERS, options.reranker ?? 'feature');
  return driver.create(options);
}

/** The whole funnel from one set of options (lexical-only on the embedded index when they say nothing): what the app, the CLI, evaluation and benchmarks build. */
export async function createRetriever(options: Partial<RetrievalModuleOptions> = {}): Promise<ToolRetriever> {
  const embedder = await createEmbedder({ ...options, embedder: options.embedder ?? 'none' });
  return new ToolRetriever(createToolIndex({ ...options, driver: options.driver ?? 'embedded' }), embedder, options.funnel ?? DEFAULT_FUNNEL, createReranker(options));
}
