import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import OpenAI, { APIError } from 'openai';
import { measureGenAi } from '../../telemetry/gen-ai.instruments';
import { Embedder, normalize } from '../embedder.port';

export interface OpenAIEmbedderOptions {
  /** Unset with a local server that needs no key. */
  apiKey?: string;
  /** Unset: api.openai.com. */
  baseURL?: string;
  /** The endpoint's model name, e.g. `text-embedding-3-small`. */
  model: string;
  /** Asks the model for shorter vectors (text-embedding-3 models); unset: the model's own size. */
  dimensions?: number;
  /** Texts per request. */
  batchSize: number;
  /** Per request, in milliseconds. */
  timeoutMs: number;
  /** Retries on 429/5xx and connection errors, with the client's backoff (Retry-After honoured). */
  maxRetries: number;
}

export const DEFAULT_OPENAI_EMBEDDER: Omit<OpenAIEmbedderOptions, 'apiKey' | 'baseURL'> = { model: 'text-embedding-3-small', batchSize: 64, timeoutMs: 30_000, maxRetries: 3 };

/** Native sizes of OpenAI's embedding models, so `dimensions` is known before the first request to api.openai.com. */
const KNOWN_DIMENSIONS: Record<string, number> = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072, 'text-embedding-ada-002': 1536 };

/**
 * OpenAI or any OpenAI-compatible embeddings endpoint, through the official client. The model id names
 * the endpoint's model, its size and (for another endpoint than OpenAI's) the host, so switching any
 * of them re-embeds the catalog instead of mixing vector spaces.
 */
export class OpenAIEmbedder extends Embedder {
  readonly model: string;
  private readonly client: OpenAI;
  private readonly options: OpenAIEmbedderOptions;
  /** Configured, known for the model, or learned from the first reply; every later vector must match it. */
  private size: number | undefined;

  constructor(options: Partial<OpenAIEmbedderOptions> & Pick<OpenAIEmbedderOptions, 'model'>) {
    super();
    this.options = { ...DEFAULT_OPENAI_EMBEDDER, ...options };
    // Another endpoint may serve a different model under an OpenAI name: there the first reply decides.
    this.size = this.options.dimensions ?? (this.options.baseURL ? undefined : KNOWN_DIMENSIONS[this.options.model]);
    const host = this.options.baseURL ? `@${new URL(this.options.baseURL).host}` : '';
    this.model = `openai:${this.options.model}${this.options.dimensions ? `:${this.options.dimensions}` : ''}${host}`;
    this.client = new OpenAI({
      // A local OpenAI-compatible server may need no key, but the client insists on one.
      apiKey: this.options.apiKey ?? 'unused',
      baseURL: this.options.baseURL,
      timeout: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
    });
  }

  /** 0 until the first reply when the model's size is neither configured nor known. */
  get dimensions(): number {
    return this.size ?? 0;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      vectors.push(...(await this.request(texts.slice(start, start + this.options.batchSize))));
    }
    return vectors;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await measureGenAi({ operation: 'embeddings', model: this.options.model, purpose: 'embed' }, () =>
        this.client.embeddings.create({
          model: this.options.model,
          input,
          // Floats, not the client's default base64: not every OpenAI-compatible server speaks base64.
          encoding_format: 'float',
          ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
        }),
      );
    } catch (error) {
      const status = error instanceof APIError && error.status ? ` (HTTP ${error.status})` : '';
      throw this.unavailable(`the embeddings endpoint failed${status}: ${(error as Error).message}`, error);
    }
    const data = Array.isArray(response?.data) ? [...response.data].sort((a, b) => a.index - b.index) : [];
    if (data.length !== input.length) throw this.unavailable(`the embeddings endpoint returned ${data.length} vectors for ${input.length} texts`);
    return data.map(({ embedding }) => {
      if (!Array.isArray(embedding) || embedding.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
        throw this.unavailable('the embeddings endpoint returned a vector that is not a list of numbers');
      this.size ??= embedding.length;
      if (embedding.length !== this.size) throw this.unavailable(`the embeddings endpoint returned a ${embedding.length}-dimensional vector where ${this.size} dimensions were expected`);
      return normalize(Float32Array.from(embedding));
    });
  }

  private unavailable(message: string, cause?: unknown): ToolgateError {
    return new ToolgateError(ErrorCode.MODEL_UNAVAILABLE, `${message} (model ${this.options.model})`, [], { cause });
  }
}
