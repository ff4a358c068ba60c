import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { Embedder } from '../embedder.port';
import { WordPieceTokenizer } from './wordpiece.tokenizer';

/** The provenance file `scripts/fetch-model.sh` writes beside the model. */
interface ModelManifest {
  name: string;
  dimension: number;
  max_seq_length: number;
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
    private readonly maxLength: number,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly session: InferenceSession,
    private readonly ort: typeof import('onnxruntime-node'),
  ) {
    super();
  }

  /** Loads and verifies the model in `dir`; MODEL_UNAVAILABLE naming the setup command when missing or corrupt. */
  static async load(dir: string, threads = 1): Promise<OnnxEmbedder> {
    const manifestPath = join(dir, 'toolgate-model.json');
    if (!existsSync(manifestPath)) throw unavailable(`no embedding model in ${dir}`);
    let manifest: ModelManifest;
    try {
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ModelManifest;
    } catch (error) {
      throw unavailable(`${manifestPath} is not valid JSON`, error);
    }
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
      });
      const tokenizer = WordPieceTokenizer.fromFile(join(dir, 'tokenizer.json'));
      const hash = (manifest.files['model.onnx']?.sha256 ?? '').slice(0, 12);
      return new OnnxEmbedder(`${manifest.name}@${hash}`, manifest.dimension, manifest.max_seq_length, tokenizer, session, ort);
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

  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((text) => this.tokenizer.encode(text, this.maxLength));
    // Longest first, like sentence-transformers, so each batch pads little.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[b].length - encoded[a].length);
    const out = new Array<Float32Array>(texts.length);
    const batchSize = 16;
    for (let i = 0; i < order.length; i += batchSize) {
      const batch = order.slice(i, i + batchSize);
      const vectors = await this.run(batch.map((j) => encoded[j]));
      for (const [k, j] of batch.entries()) out[j] = vectors[k];
    }
    return out;
  }

  private async run(idLists: number[][]): Promise<Float32Array[]> {
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
    const hidden = output.last_hidden_state.data as Float32Array;
    const d = this.dimensions;
    const vectors: Float32Array[] = [];
    for (let b = 0; b < batch; b++) {
      const vector = new Float32Array(d);
      const tokens = idLists[b].length;
      for (let s = 0; s < tokens; s++) {
        const offset = (b * length + s) * d;
        for (let i = 0; i < d; i++) vector[i] += hidden[offset + i];
      }
      let norm = 0;
      for (let i = 0; i < d; i++) {
        vector[i] /= tokens;
        norm += vector[i] * vector[i];
      }
      norm = Math.max(Math.sqrt(norm), 1e-12);
      for (let i = 0; i < d; i++) vector[i] /= norm;
      vectors.push(vector);
    }
    for (const tensor of Object.values(output)) tensor.dispose();
    return vectors;
  }
}

/** Where `scripts/fetch-model.sh` puts the model unless TOOLGATE_MODEL_DIR says otherwise. */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.TOOLGATE_MODEL_DIR ?? join(env.HOME ?? '', '.cache', 'toolgate', 'models');
  return join(root, 'all-MiniLM-L6-v2');
}
