import { dot, Embedder, type EmbeddingKind, normalize } from './embedder.port';
import { EnsembleEmbedder } from './ensemble.embedder';

/** Unit vectors from a fixed table, recording the kind it was asked for. */
class TableEmbedder extends Embedder {
  readonly kinds: EmbeddingKind[] = [];
  constructor(
    readonly model: string,
    private readonly table: Record<string, number[]>,
    override readonly languages?: readonly string[],
  ) {
    super();
  }
  get dimensions(): number {
    return Object.values(this.table)[0].length;
  }
  async embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    this.kinds.push(kind);
    return texts.map((t) => normalize(Float32Array.from(this.table[t])));
  }
}

describe('EnsembleEmbedder', () => {
  const a = new TableEmbedder('a@1', { cat: [1, 0], dog: [0.6, 0.8], car: [0, 1] }, ['en']);
  const b = new TableEmbedder('b@2', { cat: [1, 0, 0], dog: [0, 1, 0], car: [0.8, 0.6, 0] }, ['en', 'zh']);
  const both = new EnsembleEmbedder([a, b]);

  it("scores two texts by the mean of the members' cosines, as one unit vector per text", async () => {
    const [cat, dog, car] = await both.embed(['cat', 'dog', 'car'], 'query');
    expect(both.dimensions).toBe(5);
    expect(cat).toHaveLength(5);
    expect(dot(cat, cat)).toBeCloseTo(1, 6);
    expect(dot(cat, dog)).toBeCloseTo((0.6 + 0) / 2, 6);
    expect(dot(cat, car)).toBeCloseTo((0 + 0.8) / 2, 6);
    expect(a.kinds.at(-1)).toBe('query');
    expect(b.kinds.at(-1)).toBe('query');
  });

  it('reads the parts of a request through every member, and names every member in its id', async () => {
    const [whole, part] = await both.embedWithParts('cat', ['dog'], 'document');
    const [cat, dog] = await both.embed(['cat', 'dog'], 'document');
    expect([dot(whole, cat), dot(part, dog)].map((x) => Number(x.toFixed(6)))).toEqual([1, 1]);
    expect(both.model).toBe('a@1+b@2');
  });

  it('reads only the languages every member reads', () => {
    expect(both.languages).toEqual(['en']);
    expect(new EnsembleEmbedder([new TableEmbedder('x', { t: [1] }), b]).languages).toEqual(['en', 'zh']);
    expect(new EnsembleEmbedder([new TableEmbedder('x', { t: [1] }), new TableEmbedder('y', { t: [1] })]).languages).toBeUndefined();
  });

  it('needs two models at least', () => {
    expect(() => new EnsembleEmbedder([a])).toThrow('at least two');
  });
});
