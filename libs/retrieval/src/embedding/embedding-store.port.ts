/** One document vector under its cache key (the content hash `CachedEmbedder` computes). */
export interface StoredEmbedding {
  key: string;
  vector: Float32Array;
}

/**
 * Port: a persistent cache of document vectors shared by every process on the same catalog
 * database, so a restart embeds only texts this model never embedded. It holds one model's vectors
 * at a time: `CachedEmbedder` removes other models' vectors (`retainOnly`) before it first reads.
 * The registry's `EmbeddingCacheService` implements it; the gateway wires one to the other.
 */
export abstract class EmbeddingStore {
  /** The stored vectors of `model` among `keys`; a key not stored is absent from the map. */
  abstract load(model: string, keys: string[]): Promise<Map<string, Float32Array>>;
  /** Stores vectors of `model`; a key stored already (by this or another process) is kept as it is. */
  abstract save(model: string, entries: StoredEmbedding[]): Promise<void>;
  /** Removes every vector of another model; resolves to how many were removed. */
  abstract retainOnly(model: string): Promise<number>;
}
