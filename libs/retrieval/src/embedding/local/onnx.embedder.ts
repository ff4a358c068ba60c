import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { Embedder, type EmbeddingKind, normalize } from '../embedder.port';
import { WordPieceTokenizer } from './wordpiece.tokenizer';

/** The provenance file `scripts/fetch-model.sh` writes beside the model. */
interface ModelManifest {
  name: string;
  dimension: number;
  max_seq_length: number;
  /** The languages the model was trained on; absent: any. */
  languages?: string[];
  files: Record<string, { sha256: string }>;
}

export const FETCH_MODEL_COMMAND = 'npm run fetch-model';

const unavailable = (message: string, cause?: unknown) => new ToolgateError(ErrorCode.MODEL_UNAVAILABLE, `${message}; run \`${FETCH_MODEL_COMMAND}\` to install it`, [], { cause });

/**
 * A sentence-transformers model (all-MiniLM-L6-v2) in-process through ONNX Runtime: WordPiece
 * tokens, the transformer, mean pooling over the attention mask, L2 normalisation. The model id
 * includes the weights' hash, so vectors of another build are never mixed in.
 */
export class OnnxEmbedder extends Embedder {
  private constructor(
    readonly model: string,
    readonly dimensions: number,
    override readonly languages: readonly string[] | undefined,
    private readonly maxLength: number,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly session: InferenceSession,
    private readonly ort: typeof import('onnxruntime-node'),
  ) {
    super();
  }

  /**
   * The model id and dimensions from the model's provenance file alone, without loading the model:
   * what a caller needs before its first embedding. MODEL_UNAVAILABLE when the file is missing or not JSON.
   */
  static describe(dir: string): { model: string; dimensions: number; languages?: string[] } {
    const manifest = OnnxEmbedder.manifestOf(dir);
    return { model: OnnxEmbedder.modelId(manifest), dimensions: manifest.dimension, languages: manifest.languages };
  }

  private static manifestOf(dir: string): ModelManifest {
    const manifestPath = join(dir, 'toolgate-model.json');
    if (!existsSync(manifestPath)) throw unavailable(`no embedding model in ${dir}`);
    try {
      return JSON.parse(readFileSync(manifestPath, 'utf8')) as ModelManifest;
    } catch (error) {
      throw unavailable(`${manifestPath} is not valid JSON`, error);
    }
  }

  /** The weights' hash is part of the id, so vectors of another build are never mixed in. */
  private static modelId(manifest: ModelManifest): string {
    return `${manifest.name}@${(manifest.files['model.onnx']?.sha256 ?? '').slice(0, 12)}`;
  }

  /** Loads and verifies the model in `dir`; MODEL_UNAVAILABLE naming the setup command when missing or corrupt. */
  static async load(dir: string, threads = 1): Promise<OnnxEmbedder> {
    const manifest = OnnxEmbedder.manifestOf(dir);
    const modelBytes = OnnxEmbedder.verified(dir, 'model.onnx', manifest);
    OnnxEmbedder.verified(dir, 'tokenizer.json', manifest);
    try {
      const ort = await import('onnxruntime-node');
      const session = await ort.InferenceSession.create(modelBytes, {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        executionMode: 'sequential',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        // The arena keeps the peak of every batch ever run (measured: a 16 x 256-token indexing batch
        // left 650 MB resident, 290 MB without it) for a few percent of batch speed; queries are unchanged.
        enableCpuMemArena: false,
      });
      const tokenizer = WordPieceTokenizer.fromFile(join(dir, 'tokenizer.json'));
      return new OnnxEmbedder(OnnxEmbedder.modelId(manifest), manifest.dimension, manifest.languages, manifest.max_seq_length, tokenizer, session, ort);
    } catch (error) {
      throw unavailable(`the embedding model in ${dir} cannot be loaded: ${(error as Error).message}`, error);
    }
  }

  private static verified(dir: string, file: string, manifest: ModelManifest): Buffer {
    const path = join(dir, file);
    if (!existsSync(path)) throw unavailable(`${path} is missing`);
    const bytes = readFileSync(path);
    const expected = manifest.files[file]?.sha256;
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (expected && actual !== expected) throw unavailable(`${path} is corrupt (sha256 ${actual.slice(0, 12)}…, expected ${expected.slice(0, 12)}…)`);
    return bytes;
  }

  /** MiniLM embeds queries and documents alike: the kind is not used. */
  async embed(texts: string[], _kind?: EmbeddingKind): Promise<Float32Array[]> {
    const encoded = texts.map((text) => this.tokenizer.encode(text, this.maxLength));
    // Longest first, like sentence-transformers, so each batch pads little.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[b].length - encoded[a].length);
    const out = new Array<Float32Array>(texts.length);
    const batchSize = 16;
    for (let i = 0; i < order.length; i += batchSize) {
      const batch = order.slice(i, i + batchSize);
      await this.forward(
        batch.map((j) => encoded[j]),
        (hidden, length) => {
          for (const [k, j] of batch.entries()) out[j] = this.meanPool(hidden, k * length, 0, encoded[j].length);
        },
      );
    }
    return out;
  }

  /**
   * "Late chunking": one pass over the whole text, then each part's vector is the mean of its own
   * tokens' contextual states. The whole text's vector is exactly `embed([text])[0]`. A part whose
   * tokens do not appear as one run in the text's (joined fragments, or cut off by the length limit)
   * is embedded on its own.
   */
  override async embedWithParts(text: string, parts: string[], _kind?: EmbeddingKind): Promise<Float32Array[]> {
    const ids = this.tokenizer.encode(text, this.maxLength);
    const vectors: (Float32Array | undefined)[] = [];
    const alone: number[] = [];
    await this.forward([ids], (hidden) => {
      vectors.push(this.meanPool(hidden, 0, 0, ids.length));
      let from = 1;
      for (const [i, part] of parts.entries()) {
        // Without [CLS] and [SEP]: the part's tokens as they appear inside the text.
        const partIds = this.tokenizer.encode(part, this.maxLength).slice(1, -1);
        const at = indexOfRun(ids, partIds, from, ids.length - 1) ?? indexOfRun(ids, partIds, 1, ids.length - 1);
        if (at === undefined) {
          alone.push(i);
          continue;
        }
        vectors[i + 1] = this.meanPool(hidden, 0, at, at + partIds.length);
        from = at + partIds.length;
      }
    });
    if (alone.length > 0) {
      const own = await this.embed(alone.map((i) => parts[i]));
      for (const [k, i] of alone.entries()) vectors[i + 1] = own[k];
    }
    return vectors as Float32Array[];
  }

  /**
   * Runs the transformer and hands its last hidden states (`[batch, length, dimensions]` flattened,
   * inputs padded to the longest) to `read` before the native tensors are released.
   */
  private async forward(idLists: number[][], read: (hidden: Float32Array, length: number) => void): Promise<void> {
    const batch = idLists.length;
    const length = Math.max(...idLists.map((ids) => ids.length));
    const ids = new BigInt64Array(batch * length);
    const mask = new BigInt64Array(batch * length);
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < length; s++) {
        const inside = s < idLists[b].length;
        ids[b * length + s] = BigInt(inside ? idLists[b][s] : this.tokenizer.padId);
        mask[b * length + s] = inside ? 1n : 0n;
      }
    }
    const shape = [batch, length];
    const feeds: Record<string, Tensor> = {
      input_ids: new this.ort.Tensor('int64', ids, shape),
      attention_mask: new this.ort.Tensor('int64', mask, shape),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new this.ort.Tensor('int64', new BigInt64Array(batch * length), shape);
    const output = await this.session.run(feeds);
    try {
      read(output.last_hidden_state.data as Float32Array, length);
    } finally {
      for (const tensor of Object.values(output)) tensor.dispose();
    }
  }

  /** Unit-length mean of the token states `[start, end)` of the sequence starting at token `sequenceStart`. */
  private meanPool(hidden: Float32Array, sequenceStart: number, start: number, end: number): Float32Array {
    const d = this.dimensions;
    const vector = new Float32Array(d);
    for (let s = start; s < end; s++) {
      const offset = (sequenceStart + s) * d;
      for (let i = 0; i < d; i++) vector[i] += hidden[offset + i];
    }
    for (let i = 0; i < d; i++) vector[i] /= end - start;
    return normalize(vector);
  }
}

/** Where `needle` first occurs as a contiguous run in `haystack[from, until)`; undefined when it does not (or is empty). */
function indexOfRun(haystack: number[], needle: number[], from: number, until: number): number | undefined {
  if (needle.length === 0) return undefined;
  search: for (let i = from; i + needle.length <= until; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue search;
    return i;
  }
  return undefined;
}

/** Where `scripts/fetch-model.sh` puts the model unless TOOLGATE_MODEL_DIR says otherwise. */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.TOOLGATE_MODEL_DIR ?? join(env.HOME ?? '', '.cache', 'toolgate', 'models');
  return join(root, 'all-MiniLM-L6-v2');
}
