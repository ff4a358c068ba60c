import { createHash } from 'node:crypto';
import { embeddingCacheLookups } from '../telemetry/retrieval.instruments';
import { Embedder, type EmbeddingKind } from './embedder.port';
import type { EmbeddingStore } from './embedding-store.port';

/**
 * Batches calls to another embedder and caches vectors by content hash (model, kind, text), so a
 * reindex or a repeated query does not embed the same text twice. Least recently used entries go first.
 * With a store, document vectors also persist across processes: memory, then the store, then the
 * model, whose new vectors are saved; before its first read, the store drops other models' vectors.
 * Queries stay in memory only (unbounded, rarely repeated).
 */
export class CachedEmbedder extends Embedder {
  override readonly languages: readonly string[] | undefined;
  private readonly cache = new Map<string, Float32Array>();
  /** Texts being embedded now, by key: a concurrent call for the same text shares the one computation. */
  private readonly inFlight = new Map<string, Promise<Float32Array>>();
  /** The same for requests embedded with their parts in context, by all their keys. */
  private readonly partsInFlight = new Map<string, Promise<Float32Array[]>>();
  /** Set once the store holds no other model's vectors: it never mixes models or keeps an old model's rows. */
  private retained?: Promise<number>;

  constructor(
    private readonly inner: Embedder,
    private readonly batchSize = 32,
    private readonly maxEntries = 50_000,
    private readonly store?: EmbeddingStore,
  ) {
    super();
    this.languages = inner.languages;
  }

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number {
    return this.inner.dimensions;
  }

  private key(kind: EmbeddingKind, text: string, context?: string): string {
    const hash = createHash('sha256').update(`${this.inner.model}\u0000${kind}\u0000${text}`);
    // A part read in context has another vector than the same text alone.
    if (context !== undefined) hash.update(`\u0000in\u0000${context}`);
    return hash.digest('base64');
  }

  override async embedWithParts(text: string, parts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    const keys = [this.key(kind, text), ...parts.map((part) => this.key(kind, part, text))];
    const cached = keys.map((key) => this.cache.get(key));
    const hit = cached.every((vector) => vector !== undefined);
    const vectors = hit ? (cached as Float32Array[]) : await this.embedWithPartsOnce(keys, text, parts, kind);
    if (hit) embeddingCacheLookups.inc({ kind, result: 'memory' }, keys.length);
    for (const [i, key] of keys.entries()) this.remember(key, vectors[i]);
    return vectors;
  }

  /** The same request arriving while it is being embedded shares that computation (as `embed` does per text). */
  private embedWithPartsOnce(keys: string[], text: string, parts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    const id = keys.join('\n');
    const pending = this.partsInFlight.get(id);
    embeddingCacheLookups.inc({ kind, result: pending ? 'shared' : 'miss' }, keys.length);
    if (pending) return pending;
    const computing = this.inner.embedWithParts(text, parts, kind);
    this.partsInFlight.set(id, computing);
    computing.finally(() => this.partsInFlight.delete(id)).catch(() => undefined);
    return computing;
  }

  async embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    const keys = texts.map((t) => this.key(kind, t));
    const textOf = new Map(keys.map((key, i) => [key, texts[i]]));
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      const vector = this.cache.get(key);
      if (vector) found.set(key, vector);
    }
    // A text another call is already embedding is awaited, not embedded again: fifty plans that start
    // together ask for the same candidates' texts.
    const shared = new Map<string, Promise<Float32Array>>();
    const own: string[] = [];
    for (const key of textOf.keys()) {
      if (found.has(key)) continue;
      const pending = this.inFlight.get(key);
      if (pending) shared.set(key, pending);
      else own.push(key);
    }
    if (found.size > 0) embeddingCacheLookups.inc({ kind, result: 'memory' }, found.size);
    if (shared.size > 0) embeddingCacheLookups.inc({ kind, result: 'shared' }, shared.size);
    const settle = new Map<string, { resolve: (vector: Float32Array) => void; reject: (error: unknown) => void }>();
    for (const key of own) {
      const pending = new Promise<Float32Array>((resolve, reject) => settle.set(key, { resolve, reject }));
      // Only the calls that share it await it; an unshared failure is this call's own to throw.
      pending.catch(() => undefined);
      this.inFlight.set(key, pending);
    }
    try {
      await this.embedOwn(own, textOf, kind, (key, vector) => {
        found.set(key, vector);
        settle.get(key)?.resolve(vector);
      });
    } catch (error) {
      for (const key of own) settle.get(key)?.reject(error);
      throw error;
    } finally {
      for (const key of own) this.inFlight.delete(key);
    }
    for (const [key, pending] of shared) found.set(key, await pending);
    return keys.map((key) => {
      const vector = found.get(key) as Float32Array;
      this.remember(key, vector);
      return vector;
    });
  }

  /** Memory missed these: the store (documents), then the model in batches; each vector is handed to `done` as soon as it is known. */
  private async embedOwn(own: string[], textOf: Map<string, string>, kind: EmbeddingKind, done: (key: string, vector: Float32Array) => void): Promise<void> {
    let missing = own;
    const store = kind === 'document' ? this.store : undefined;
    if (store && missing.length > 0) {
      this.retained ??= store.retainOnly(this.model).catch((error: unknown) => {
        this.retained = undefined;
        throw error;
      });
      await this.retained;
      const stored = await store.load(this.model, missing);
      for (const [key, vector] of stored) done(key, vector);
      missing = missing.filter((key) => !stored.has(key));
      if (stored.size > 0) embeddingCacheLookups.inc({ kind, result: 'store' }, stored.size);
    }
    if (missing.length > 0) embeddingCacheLookups.inc({ kind, result: 'miss' }, missing.length);
    for (let start = 0; start < missing.length; start += this.batchSize) {
      const batch = missing.slice(start, start + this.batchSize);
      const vectors = await this.inner.embed(
        batch.map((key) => textOf.get(key) as string),
        kind,
      );
      for (const [i, key] of batch.entries()) done(key, vectors[i]);
      // Saved batch by batch: an interrupted first sync of a large catalog keeps what it embedded.
      await store?.save(
        this.model,
        batch.map((key, i) => ({ key, vector: vectors[i] })),
      );
    }
  }

  override close(): Promise<void> {
    return this.inner.close();
  }

  /** (Re-)inserts at the recent end. */
  private remember(key: string, vector: Float32Array): void {
    this.cache.delete(key);
    this.cache.set(key, vector);
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
  }
}
