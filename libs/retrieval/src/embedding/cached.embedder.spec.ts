import { embeddingCacheLookups } from '../telemetry/retrieval.instruments';
import { CachedEmbedder } from './cached.embedder';
import { Embedder } from './embedder.port';
import { EmbeddingStore, type StoredEmbedding } from './embedding-store.port';

/** Document lookups of the embedding cache so far, by result. */
async function lookups(): Promise<Record<string, number>> {
  const { values } = await embeddingCacheLookups.get();
  return Object.fromEntries(values.filter((v) => v.labels.kind === 'document').map((v) => [String(v.labels.result), v.value]));
}

const grown = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).flatMap(([result, value]) => (value !== (before[result] ?? 0) ? [[result, value - (before[result] ?? 0)]] : [])));

/** Vectors that say which call made them: [call number, position, 1 when read in context]. */
class CountingEmbedder extends Embedder {
  readonly dimensions = 3;
  calls = 0;
  embedded: string[] = [];

  constructor(readonly model = 'counting') {
    super();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.embedded.push(...texts);
    return texts.map((_, i) => Float32Array.of(this.calls, i, 0));
  }

  override async embedWithParts(text: string, parts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return [text, ...parts].map((_, i) => Float32Array.of(this.calls, i, 1));
  }
}

/** The store's contract in memory (the registry's database-backed one has its own integration spec). */
class MemoryStore extends EmbeddingStore {
  readonly rows = new Map<string, { model: string; vector: Float32Array }>();
  loads: string[][] = [];
  saves: StoredEmbedding[][] = [];

  async load(model: string, keys: string[]): Promise<Map<string, Float32Array>> {
    this.loads.push(keys);
    return new Map(
      keys.flatMap((key) => {
        const row = this.rows.get(key);
        return row?.model === model ? [[key, row.vector] as const] : [];
      }),
    );
  }

  async save(model: string, entries: StoredEmbedding[]): Promise<void> {
    this.saves.push(entries);
    for (const { key, vector } of entries) if (!this.rows.has(key)) this.rows.set(key, { model, vector });
  }

  async retainOnly(model: string): Promise<number> {
    const other = [...this.rows].filter(([, row]) => row.model !== model);
    for (const [key] of other) this.rows.delete(key);
    return other.length;
  }
}

describe('CachedEmbedder', () => {
  it('embeds a repeated text once', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder(inner);
    const [first] = await cached.embed(['a'], 'query');
    const [again, other] = await cached.embed(['a', 'b'], 'query');
    expect(again).toBe(first);
    expect(other).toEqual(Float32Array.of(2, 0, 0));
    expect(inner.calls).toBe(2);
  });

  it('caches parts read in context apart from the same texts alone, and the whole with the plain text', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder(inner);
    const withParts = await cached.embedWithParts('a and b', ['a', 'b'], 'query');
    expect(await cached.embedWithParts('a and b', ['a', 'b'], 'query')).toEqual(withParts);
    expect(inner.calls).toBe(1);
    // The whole text's vector is the plain one: a later plain request reuses it.
    expect((await cached.embed(['a and b'], 'query'))[0]).toBe(withParts[0]);
    expect(inner.calls).toBe(1);
    // "a" alone is another vector than "a" inside "a and b".
    expect((await cached.embed(['a'], 'query'))[0]).toEqual(Float32Array.of(2, 0, 0));
    expect(inner.calls).toBe(2);
  });

  it('embeds a text that concurrent calls ask for once, and gives each the same vector', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder(inner);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => cached.embed(['candidate tool text', `request ${i % 5}`], 'document')));
    expect(inner.embedded.filter((t) => t === 'candidate tool text')).toHaveLength(1);
    expect(new Set(inner.embedded).size).toBe(inner.embedded.length);
    for (const [shared] of results) expect(shared).toBe(results[0][0]);
    expect(results[7][1]).toBe(results[2][1]);
  });

  it('embeds a request with its parts once for concurrent callers', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder(inner);
    const results = await Promise.all(Array.from({ length: 20 }, () => cached.embedWithParts('a and b', ['a', 'b'], 'query')));
    expect(inner.calls).toBe(1);
    for (const vectors of results) expect(vectors).toEqual(results[0]);
    // Another split of the same text is another request.
    await cached.embedWithParts('a and b', ['a and b'], 'query');
    expect(inner.calls).toBe(2);
  });

  it('fails every call that shared a failed embedding, and embeds the text again on the next call', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder(inner);
    let release!: () => void;
    const embed = jest.spyOn(inner, 'embed').mockImplementationOnce(() => new Promise((_, reject) => (release = () => reject(new Error('model worker died')))));
    const first = cached.embed(['a'], 'query');
    const second = cached.embed(['a'], 'query');
    release();
    await expect(first).rejects.toThrow('model worker died');
    await expect(second).rejects.toThrow('model worker died');
    expect(embed).toHaveBeenCalledTimes(1);
    expect(await cached.embed(['a'], 'query')).toHaveLength(1);
    expect(embed).toHaveBeenCalledTimes(2);
  });

  it('closes the embedder it wraps', async () => {
    const inner = new CountingEmbedder();
    const close = jest.spyOn(inner, 'close');
    await new CachedEmbedder(inner).close();
    expect(close).toHaveBeenCalledTimes(1);
  });

  describe('with a store', () => {
    it('embeds a document only when neither memory nor the store has it, and saves what it embedded', async () => {
      const store = new MemoryStore();
      const first = new CountingEmbedder();
      const [a, b] = await new CachedEmbedder(first, 32, 100, store).embed(['a', 'b'], 'document');
      expect(first.embedded).toEqual(['a', 'b']);
      expect(store.rows.size).toBe(2);
      // Another process: a new memory, the same store.
      const second = new CountingEmbedder();
      const cached = new CachedEmbedder(second, 32, 100, store);
      const before = await lookups();
      const vectors = await cached.embed(['b', 'a', 'c', 'a'], 'document');
      // What /metrics counts: distinct texts, by where their vector came from.
      expect(grown(before, await lookups())).toEqual({ store: 2, miss: 1 });
      expect(second.embedded).toEqual(['c']);
      expect(vectors).toEqual([b, a, Float32Array.of(1, 0, 0), a]);
      expect(store.loads.at(-1)).toHaveLength(3);
      expect(store.saves.at(-1)?.map((e) => e.vector)).toEqual([Float32Array.of(1, 0, 0)]);
      // Now all in memory: the store is not asked again.
      const loads = store.loads.length;
      const warm = await lookups();
      await cached.embed(['a', 'b', 'c'], 'document');
      expect(grown(warm, await lookups())).toEqual({ memory: 3 });
      expect(store.loads).toHaveLength(loads);
      expect(second.calls).toBe(1);
    });

    it('saves batch by batch, so an interrupted first embedding keeps what it finished', async () => {
      const store = new MemoryStore();
      await new CachedEmbedder(new CountingEmbedder(), 2, 100, store).embed(['a', 'b', 'c', 'd', 'e'], 'document');
      expect(store.saves.map((batch) => batch.length)).toEqual([2, 2, 1]);
    });

    it('keeps queries in memory only', async () => {
      const store = new MemoryStore();
      const inner = new CountingEmbedder();
      const cached = new CachedEmbedder(inner, 32, 100, store);
      await cached.embed(['a'], 'query');
      await cached.embedWithParts('a and b', ['a', 'b'], 'query');
      expect({ loads: store.loads, saves: store.saves }).toEqual({ loads: [], saves: [] });
      await cached.embed(['a'], 'query');
      expect(inner.calls).toBe(2);
    });

    it("does not reuse another model's vectors, and removes them before its first read", async () => {
      const store = new MemoryStore();
      await new CachedEmbedder(new CountingEmbedder(), 32, 100, store).embed(['a', 'b'], 'document');
      const other = new CountingEmbedder('other');
      await new CachedEmbedder(other, 32, 100, store).embed(['a'], 'document');
      expect(other.embedded).toEqual(['a']);
      expect([...store.rows.values()].map((row) => row.model)).toEqual(['other']);
    });

    it('retries the removal after it failed', async () => {
      const store = new MemoryStore();
      const retainOnly = jest.spyOn(store, 'retainOnly').mockRejectedValueOnce(new Error('database down'));
      const cached = new CachedEmbedder(new CountingEmbedder(), 32, 100, store);
      await expect(cached.embed(['a'], 'document')).rejects.toThrow('database down');
      await cached.embed(['a'], 'document');
      await cached.embed(['b'], 'document');
      expect(retainOnly).toHaveBeenCalledTimes(2);
    });
  });
});
