import { cjkShare } from '../documents/text.tokenizer';

/** What a text is, for models that embed queries and passages differently. */
export type EmbeddingKind = 'query' | 'document';

/** Port: turns texts into unit-length vectors. Drivers: local ONNX model, OpenAI-compatible endpoint, hashing. */
export abstract class Embedder {
  /** Identifies the vector space: documents embedded by another model are never mixed in, they are re-embedded. */
  abstract readonly model: string;
  abstract readonly dimensions: number;
  /**
   * The languages the model was trained on (ISO 639-1), when they are known to be few: its vector of a
   * text in another script is noise, not meaning (see `canRead`). Undefined: any language.
   */
  readonly languages?: readonly string[];
  /** One unit-length vector per text, in order. */
  abstract embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]>;

  /**
   * Vectors for a text and for parts of it (the clauses of a multi-part request): `[whole, ...parts]`.
   * By default each is embedded on its own; a model that pools token states overrides this to read
   * the parts from one pass over the whole text, which costs one text instead of two and gives each
   * part its context.
   */
  embedWithParts(text: string, parts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    return this.embed([text, ...parts], kind);
  }

  /** Releases what the embedder holds (a worker thread, a connection); nothing by default. */
  async close(): Promise<void> {}
}

const CJK_LANGUAGES = ['zh', 'ja', 'ko'];

/** False when the text is mostly written in CJK scripts and the model reads none of their languages. */
export function canRead(embedder: Embedder, text: string): boolean {
  const { languages } = embedder;
  return !languages || languages.some((language) => CJK_LANGUAGES.includes(language)) || cjkShare(text) <= 0.5;
}

export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
