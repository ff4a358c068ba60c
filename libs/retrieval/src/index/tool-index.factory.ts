import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { ElasticsearchToolIndex } from '../elasticsearch/elasticsearch-tool-index';
import { EmbeddedToolIndex } from '../embedded/embedded-tool-index';
import { CachedEmbedder } from '../embedding/cached.embedder';
import type { Embedder } from '../embedding/embedder.port';
import { HashingEmbedder } from '../embedding/hashing.embedder';
import { defaultModelDir } from '../embedding/local/onnx.embedder';
import { ThreadedOnnxEmbedder } from '../embedding/local/threaded-onnx.embedder';
import { DEFAULT_OPENAI_EMBEDDER, OpenAIEmbedder } from '../embedding/openai/openai.embedder';
import { DEFAULT_FUNNEL, ToolRetriever } from '../funnel/tool-retriever';
import { FeatureReranker } from '../rerank/feature.reranker';
import { LlmReranker } from '../rerank/llm.reranker';
import type { Reranker } from '../rerank/reranker.port';
import type { RetrievalModuleOptions } from '../retrieval.module-definition';
import type { ToolIndex } from './tool-index.port';

/** A new, empty index of the configured driver (the app's catalog index, or a scratch one for evaluation). */
export function createToolIndex(options: Pick<RetrievalModuleOptions, 'driver' | 'elasticsearch'>): ToolIndex {
  switch (options.driver) {
    case 'embedded':
      return new EmbeddedToolIndex();
    case 'elasticsearch':
      if (!options.elasticsearch) throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'the elasticsearch driver needs ELASTICSEARCH_URL', [{ path: 'ELASTICSEARCH_URL', message: 'required' }]);
      return new ElasticsearchToolIndex(options.elasticsearch);
  }
}

/**
 * The configured embedder, cached and batched; null for lexical-only retrieval. Loads (and verifies) a local model.
 * A model that costs time or money (local, openai) keeps document vectors in `embeddingStore` when one is given;
 * hashing vectors are cheaper to compute than to read.
 */
export async function createEmbedder(options: Pick<RetrievalModuleOptions, 'embedder' | 'modelDir' | 'modelThreads' | 'openai' | 'embeddingStore'>): Promise<Embedder | null> {
  switch (options.embedder) {
    case 'none':
      return null;
    case 'hashing':
      return new CachedEmbedder(new HashingEmbedder());
    case 'local':
      // In a worker thread: inference would otherwise hold the event loop for its whole duration.
      return new CachedEmbedder(await ThreadedOnnxEmbedder.start(options.modelDir, options.modelThreads), undefined, undefined, options.embeddingStore);
    case 'openai': {
      const openai = { ...DEFAULT_OPENAI_EMBEDDER, ...options.openai };
      return new CachedEmbedder(new OpenAIEmbedder(openai), openai.batchSize, undefined, options.embeddingStore);
    }
  }
}

/** The configured rerank stage (feature reranker when unset); null keeps the fused order. */
export function createReranker(options: Pick<RetrievalModuleOptions, 'reranker' | 'llmReranker'>): Reranker | null {
  switch (options.reranker ?? 'feature') {
    case 'none':
      return null;
    case 'feature':
      return new FeatureReranker();
    case 'llm':
      return new LlmReranker(options.llmReranker);
  }
}

export async function createRetriever(
  options: Partial<Pick<RetrievalModuleOptions, 'driver' | 'elasticsearch' | 'embedder' | 'embeddingStore' | 'funnel' | 'modelDir' | 'modelThreads' | 'openai' | 'reranker' | 'llmReranker'>> = {},
): Promise<ToolRetriever> {
  const embedder = await createEmbedder({
    embedder: options.embedder ?? 'none',
    modelDir: options.modelDir ?? defaultModelDir(),
    modelThreads: options.modelThreads,
    openai: options.openai,
    embeddingStore: options.embeddingStore,
  });
  return new ToolRetriever(createToolIndex({ driver: options.driver ?? 'embedded', elasticsearch: options.elasticsearch }), embedder, options.funnel ?? DEFAULT_FUNNEL, createReranker(options));
}
