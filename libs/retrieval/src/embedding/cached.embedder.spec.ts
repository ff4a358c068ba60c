import { CachedEmbedder } from './cached.embedder';
import { Embedder } from './embedder.port';

/** Vectors that say which call made them: [call number, position, 1 when read in context]. */
class CountingEmbedder extends Embedder {
  readonly model = 'counting';
  readonly dimensions = 3;
  calls = 0;

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((_, i) => Float32Array.of(this.calls, i, 0));
  }

  override async embedWithParts(text: string, parts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return [text, ...parts].map((_, i) => Float32Array.of(this.calls, i, 1));
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
});
