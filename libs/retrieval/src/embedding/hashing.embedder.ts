import { createHash } from 'node:crypto';
import { tokenize } from '../documents/text.tokenizer';
import { Embedder, normalize } from './embedder.port';

/**
 * A deterministic, model-free embedder: hashed word unigrams and bigrams (signed feature hashing).
 * It is lexical — it knows no synonyms — and exists so that the vector side works with no model
 * installed (tests, minimal installs). Use the local model for real semantic matching.
 */
export class HashingEmbedder extends Embedder {
  readonly model: string;

  constructor(readonly dimensions = 384) {
    super();
    this.model = `hashing-v1-${dimensions}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      const tokens = tokenize(text);
      const features = [...tokens, ...tokens.slice(1).map((t, i) => `${tokens[i]} ${t}`)];
      for (const feature of features) {
        const digest = createHash('md5').update(feature).digest();
        const bucket = digest.readUInt32LE(0) % this.dimensions;
        vector[bucket] += digest[4] & 1 ? 1 : -1;
      }
      return normalize(vector);
    });
  }
}
