import type { Driver } from '@toolgate/sdk';
import type { z } from 'zod';
import type { Embedder } from './embedding/embedder.port';
import type { EmbeddingStore } from './embedding/embedding-store.port';
import type { ToolIndex } from './index/tool-index.port';
import type { Reranker } from './rerank/reranker.port';

/** A retrieval driver: reads its own variables (`S`), contributes its options (`O`), builds its port. */
type RetrievalDriver<Name extends string, S extends z.ZodRawShape, O extends object, Port, Deps = undefined> = Driver<Name, z.infer<z.ZodObject<S>>, O, Port, Deps, S> & {
  options?(env: z.infer<z.ZodObject<S>>): O;
};

export type ToolIndexDriver<Name extends string = string, S extends z.ZodRawShape = z.ZodRawShape, O extends object = object> = RetrievalDriver<Name, S, O, ToolIndex>;

/** What an embedder may be given besides its options: the persistent store of document vectors. */
export interface EmbedderDeps {
  embeddingStore?: EmbeddingStore;
}

/** Builds the embedder (cached and batched), or null for lexical-only retrieval; may load a model. */
export type EmbedderDriver<Name extends string = string, S extends z.ZodRawShape = z.ZodRawShape, O extends object = object> = RetrievalDriver<Name, S, O, Promise<Embedder | null>, EmbedderDeps>;

/** Builds the rerank stage, or null to keep the fused order. */
export type RerankerDriver<Name extends string = string, S extends z.ZodRawShape = z.ZodRawShape, O extends object = object> = RetrievalDriver<Name, S, O, Reranker | null>;
