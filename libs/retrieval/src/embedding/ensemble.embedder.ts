import { Embedder, type EmbeddingKind } from './embedder.port';

/**
 * Several models as one vector space: each text's vectors from every member, concatenated and scaled
 * by 1/√n, so the dot product of two such vectors is the mean of the members' cosines. Members with
 * different blind spots average them out (bench/retrieval/README.md, "Models"); the cost is every
 * member's inference. The id names every member, so its vectors are never mixed with one model's.
 */
export class EnsembleEmbedder extends Embedder {
  readonly model: string;
  readonly dimensions: number;
  override readonly languages: readonly string[] | undefined;
  private readonly scale: number;

  constructor(private readonly members: readonly Embedder[]) {
    super();
    if (members.length < 2) throw new Error('an ensemble needs at least two models');
    this.model = members.map((m) => m.model).join('+');
    this.dimensions = members.reduce((sum, m) => sum + m.dimensions, 0);
    // It reads what every member reads: a text one member cannot read would only add noise to the mean.
    const known = members.map((m) => m.languages);
    this.languages = known.some((l) => l === undefined) ? known.find((l) => l !== undefined) : (known as (readonly string[])[]).reduce((a, b) => a.filter((x) => b.includes(x)));
    this.scale = 1 / Math.sqrt(members.length);
  }

  async embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    return this.joined(await Promise.all(this.members.map((m) => m.embed(texts, kind))));
  }

  override async embedWithParts(text: string, parts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    return this.joined(await Promise.all(this.members.map((m) => m.embedWithParts(text, parts, kind))));
  }

  override async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }

  /** Row i of the result: every member's row i, one after another, scaled. */
  private joined(byMember: Float32Array[][]): Float32Array[] {
    return byMember[0].map((_, row) => {
      const out = new Float32Array(this.dimensions);
      let offset = 0;
      for (const vectors of byMember) {
        const vector = vectors[row];
        for (let i = 0; i < vector.length; i++) out[offset + i] = vector[i] * this.scale;
        offset += vector.length;
      }
      return out;
    });
  }
}
