import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { EmbeddingStore } from './embedding/embedding-store.port';
import type { OpenAIEmbedderOptions } from './embedding/openai/openai.embedder';
import type { FunnelOptions } from './funnel/tool-retriever';
import type { LlmRerankerOptions } from './rerank/llm.reranker';

export interface RetrievalModuleOptions {
  /** `embedded`: in-process index, the zero-config default; `elasticsearch`: a cluster at `elasticsearch.node`. */
  driver: 'embedded' | 'elasticsearch';
  elasticsearch?: { node: string; indexPrefix: string };
  /** `local`: the sentence-embedding model in-process; `none`: lexical only; `hashing`: model-free lexical vectors; `openai`: an OpenAI-compatible endpoint. */
  embedder: 'local' | 'none' | 'hashing' | 'openai';
  /** The OpenAI-compatible embeddings endpoint, for `embedder: 'openai'`. */
  openai?: OpenAIEmbedderOptions;
  /** Folder of the local model (model.onnx, tokenizer.json, toolgate-model.json). */
  modelDir: string;
  /** Threads one local-model inference may use (ONNX Runtime intra-op); default 1. */
  modelThreads?: number;
  /** Persistent cache of document vectors (the catalog database's); without it they are cached in memory only. */
  embeddingStore?: EmbeddingStore;
  funnel: FunnelOptions;
  /** Rerank stage after fusion: `feature` (default) lexical features, `llm` a chat model, `none` keeps the fused order. */
  reranker?: 'feature' | 'llm' | 'none';
  /** The OpenAI-compatible chat endpoint and model, for `reranker: 'llm'`. */
  llmReranker?: Partial<LlmRerankerOptions>;
  /** Search results returned when the caller does not say. */
  defaultK: number;
  /** Upper bound on k a caller may ask for. */
  maxK: number;
}

export const { ConfigurableModuleClass: RetrievalConfigurableModule, MODULE_OPTIONS_TOKEN: RETRIEVAL_OPTIONS } = new ConfigurableModuleBuilder<RetrievalModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
