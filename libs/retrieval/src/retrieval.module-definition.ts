import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DriverOptionsOf } from '@toolgate/sdk';
import type { EMBEDDER_DRIVERS } from './embedding/embedder.drivers';
import type { EmbeddingStore } from './embedding/embedding-store.port';
import type { FunnelOptions, WarmupPolicy } from './funnel/tool.retriever';
import type { TOOL_INDEX_DRIVERS } from './index/tool-index.drivers';
import type { RERANKER_DRIVERS } from './rerank/reranker.drivers';

type IndexDriver = (typeof TOOL_INDEX_DRIVERS)[number];
type EmbedderDriver = (typeof EMBEDDER_DRIVERS)[number];
type RerankerDriver = (typeof RERANKER_DRIVERS)[number];

/** The retrieval lib's options: which driver of each port, each driver's own settings, and the funnel's. */
export type RetrievalModuleOptions = {
  /** The tool index driver: `embedded` (in-process, the default) or `elasticsearch` (a cluster at `elasticsearch.node`). */
  driver: IndexDriver['name'];
  /** `local`: the sentence-embedding model in-process; `none`: lexical only; `hashing`: model-free lexical vectors; `openai`: an OpenAI-compatible endpoint. */
  embedder: EmbedderDriver['name'];
  /** Persistent cache of document vectors (the catalog database's); without it they are cached in memory only. */
  embeddingStore?: EmbeddingStore;
  funnel: FunnelOptions;
  /** Rerank stage after fusion: `feature` (default) lexical features, `llm` a chat model, `none` keeps the fused order. */
  reranker?: RerankerDriver['name'];
  /** Search results returned when the caller does not say. */
  defaultK: number;
  /** Upper bound on k a caller may ask for. */
  maxK: number;
  /** How searches behave while the index warms up (default: degraded answers, said so, up to 15 s of waiting). */
  warmup?: WarmupPolicy;
} & DriverOptionsOf<IndexDriver> &
  DriverOptionsOf<EmbedderDriver> &
  DriverOptionsOf<RerankerDriver>;

export const { ConfigurableModuleClass: RetrievalConfigurableModule, MODULE_OPTIONS_TOKEN: RETRIEVAL_OPTIONS } = new ConfigurableModuleBuilder<RetrievalModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
