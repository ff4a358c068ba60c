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
  /** `cls`: the first token's state is the text's vector (BGE); otherwise the mean over the tokens (sentence-transformers, E5). */
  pooling?: string;
  /** What the model was trained to see before a query or a passage (E5's "query: ", BGE's retrieval instruction). */
  query_prefix?: string;
  document_prefix?: string;
  files: Record<string, { sha256: string }>;
}

type Pooling = 'cls' | 'mean';

export const FETCH_MODEL_COMMAND = 'npm run fetch-model';

const unavailable = (message: string, cause?: unknown) => new ToolgateError(ErrorCode.MODEL_UNAVAILABLE, `${message}; run \`${FETCH_MODEL_COMMAND}\` to install it`, [], { cause });

/**
 * A BERT-family sentence-embedding model (all-MiniLM-L6-v2 by default; BGE and E5 as options) in-process
 * through ONNX Runtime: WordPiece tokens after the model's query or passage prefix, the transformer,
 * mean or [CLS] pooling as its manifest says, L2 normalisation. The model id includes the weights'
 * hash, so vectors of another build are never mixed in.
 */
export class OnnxEmbedder extends Embedder {
  private constructor(
    readonly model: string,
    readonly dimensions: number,
    override readonly languages: readonly string[] | undefined,
    private readonly maxLength: number,
    private readonly pooling: Pooling,
    private readonly prefixes: Record<EmbeddingKind, string>,
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

  private static poolingOf(manifest: ModelManifest): Pooling {
    const pooling = manifest.pooling ?? 'mean';
    if (pooling === 'cls') return 'cls';
    // all-MiniLM's manifest says it in words ("mean over attention mask"); kept so its cache stays valid.
    if (pooling.startsWith('mean')) return 'mean';
    throw unavailable(`the model's manifest names an unknown pooling "${pooling}" (cls or mean)`);
  }

  /** The weights' hash is part of the id, so vectors of another build are never mixed in. */
  private static modelId(manifest: ModelManifest): string {
    return `${manifest.name}@${(manifest.files['model.onnx']?.sha256 ?? '').slice(0, 12)}`;
  }

  /** Loads and verifies the model in `dir`; MODEL_UNAVAILABLE naming the setup command when missing or corrupt. */
  static async load(dir: string, threads = 1): Promise<OnnxEmbedder> {
    const manifest = OnnxEmbedder.manifestOf(dir);
    const pooling = OnnxEmbedder.poolingOf(manifest);
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
        // The arena keeps the peak of the largest input ever run. Texts go through one at a time (at most
        // max_seq_length tokens), so that peak is small, and without the arena the allocator fragments:
        // measured after 32 texts of 256 tokens, 88 MB resident with it and 101-220 MB without.
        enableCpuMemArena: true,
      });
      const tokenizer = WordPieceTokenizer.fromFile(join(dir, 'tokenizer.json'));
      const prefixes = { query: manifest.query_prefix ?? '', document: manifest.document_prefix ?? '' };
      return new OnnxEmbedder(OnnxEmbedder.modelId(manifest), manifest.dimension, manifest.languages, manifest.max_seq_length, pooling, prefixes, tokenizer, session, ort);
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

  /**
   * The kind picks the model's prefix (none for MiniLM). Each text runs alone: the quantized models
   * quantizes its activations with one scale per input tensor, so inside a padded batch a text's vector
   * would depend on its neighbours (measured: cosine 0.994 to the same text alone). Alone, a text always
   * gets the same vector, and no time goes to padding (16 texts of 200 tokens: 335 ms one by one, 518 ms
   * as one batch; of 16 tokens, 21 vs 16 ms).
   */
  async embed(texts: string[], kind: EmbeddingKind = 'document'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const text of texts) {
      const ids = this.tokenizer.encode(this.prefixes[kind] + text, this.maxLength);
      await this.forward(ids, (hidden) => {
        out.push(this.pooled(hidden, ids.length));
      });
    }
    return out;
  }

  private pooled(hidden: Float32Array, length: number): Float32Array {
    return this.pooling === 'cls' ? normalize(hidden.slice(0, this.dimensions)) : this.meanPool(hidden, 0, length);
  }

  /**
   * "Late chunking": one pass over the whole text, then each part's vector is the mean of its own
   * tokens' contextual states. The whole text's vector is exactly `embed([text])[0]`. A part whose
   * tokens do not appear as one run in the text's (joined fragments, or cut off by the length limit)
   * is embedded on its own. A [CLS]-pooled model was never trained to mean its token states, so there
   * each part is embedded on its own.
   */
  override async embedWithParts(text: string, parts: string[], kind: EmbeddingKind = 'query'): Promise<Float32Array[]> {
    if (this.pooling === 'cls') return this.embed([text, ...parts], kind);
    const ids = this.tokenizer.encode(this.prefixes[kind] + text, this.maxLength);
    const vectors: (Float32Array | undefined)[] = [];
    const alone: number[] = [];
    await this.forward(ids, (hidden) => {
      vectors.push(this.meanPool(hidden, 0, ids.length));
      let from = 1;
      for (const [i, part] of parts.entries()) {
        // Without [CLS] and [SEP]: the part's tokens as they appear inside the text.
        const partIds = this.tokenizer.encode(part, this.maxLength).slice(1, -1);
        const at = indexOfRun(ids, partIds, from, ids.length - 1) ?? indexOfRun(ids, partIds, 1, ids.length - 1);
        if (at === undefined) {
          alone.push(i);
          continue;
        }
        vectors[i + 1] = this.meanPool(hidden, at, at + partIds.length);
        from = at + partIds.length;
      }
    });
    if (alone.length > 0) {
      const own = await this.embed(
        alone.map((i) => parts[i]),
        kind,
      );
      for (const [k, i] of alone.entries()) vectors[i + 1] = own[k];
    }
    return vectors as Float32Array[];
  }

  /** Runs the transformer over one sequence and hands its last hidden states (`[length, dimensions]`) to `read` before the native tensors are released. */
  private async forward(idList: number[], read: (hidden: Float32Array) => void): Promise<void> {
    const shape = [1, idList.length];
    const ids = BigInt64Array.from(idList, (id) => BigInt(id));
    const feeds: Record<string, Tensor> = {
      input_ids: new this.ort.Tensor('int64', ids, shape),
      attention_mask: new this.ort.Tensor('int64', new BigInt64Array(idList.length).fill(1n), shape),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new this.ort.Tensor('int64', new BigInt64Array(idList.length), shape);
    const output = await this.session.run(feeds);
    try {
      read(output.last_hidden_state.data as Float32Array);
    } finally {
      for (const tensor of Object.values(output)) tensor.dispose();
    }
  }

  /** Unit-length mean of the token states `[start, end)`. */
  private meanPool(hidden: Float32Array, start: number, end: number): Float32Array {
    const d = this.dimensions;
    const vector = new Float32Array(d);
    for (let s = start; s < end; s++) {
      const offset = s * d;
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

/** The models `scripts/fetch-model.sh` can lay down (its table has each one's pinned files); the first is the default. */
export const LOCAL_MODELS = ['all-MiniLM-L6-v2', 'bge-small-en-v1.5', 'bge-small-zh-v1.5'] as const;
export type LocalModelName = (typeof LOCAL_MODELS)[number];

/** The models TOOLGATE_LOCAL_MODEL names: one, or several joined by `+` (an ensemble). */
export const localModelNames = (value: string | undefined): string[] => (value || LOCAL_MODELS[0]).split('+');

/** Each named model's folder, as `scripts/fetch-model.sh` lays them down. */
export function localModelDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const root = env.TOOLGATE_MODEL_DIR ?? join(env.HOME ?? '', '.cache', 'toolgate', 'models');
  return localModelNames(env.TOOLGATE_LOCAL_MODEL).map((name) => join(root, name));
}

/** Where `scripts/fetch-model.sh` puts the model TOOLGATE_LOCAL_MODEL names (the first of an ensemble), under TOOLGATE_MODEL_DIR when set. */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  return localModelDirs(env)[0];
}
