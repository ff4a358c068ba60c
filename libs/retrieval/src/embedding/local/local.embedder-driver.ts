import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { EmbedderDriver } from '../../retrieval.drivers';
import { CachedEmbedder } from '../cached.embedder';
import { EnsembleEmbedder } from '../ensemble.embedder';
import { defaultModelDir, LOCAL_MODELS, localModelDirs, localModelNames } from './onnx.embedder';
import { OnnxWorkerPool } from './onnx-worker.pool';

const env = {
  TOOLGATE_MODEL_DIR: z.string().min(1).optional(),
  /** Which local model (bench/retrieval/README.md has their measured table); `scripts/fetch-model.sh` fetches the one named. */
  TOOLGATE_LOCAL_MODEL: z
    .string()
    .default(LOCAL_MODELS[0])
    .refine(
      (value) => {
        const names = localModelNames(value);
        return names.length <= 3 && new Set(names).size === names.length && names.every((name) => (LOCAL_MODELS as readonly string[]).includes(name));
      },
      { message: `must name one of ${LOCAL_MODELS.join(', ')}, or up to three of them joined by + (an ensemble)` },
    ),
  /**
   * Threads one local-model inference may use. One: the quantized model embeds a query in ~2.5 ms either
   * way (2.51 ms with two threads, 2.63 with one, bench/retrieval), and with one the other cores stay free
   * for the searches around it (50 concurrent searches at 1k tools on 2 cores: 215/s with two, 262/s with one).
   */
  TOOLGATE_EMBEDDING_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /** Model workers at most: the first serves alone, more start only while callers wait (OnnxWorkerPool). */
  TOOLGATE_EMBEDDING_WORKERS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => Math.min(2, availableParallelism())),
};

export interface LocalModelOptions {
  /** Folder of the local model (model.onnx, tokenizer.json, toolgate-model.json). */
  modelDir: string;
  /** Folders of more models averaged with it (an ensemble: TOOLGATE_LOCAL_MODEL=a+b). */
  ensembleDirs?: string[];
  /** Threads one local-model inference may use (ONNX Runtime intra-op); default 1. */
  modelThreads?: number;
  /** Model workers at most (default 1); the extra ones start under load and stop when idle. */
  modelWorkers?: number;
  /**
   * `boot` (default): the model loads when the embedder is created, so a server with a broken model
   * stops at once. `first-use`: it loads with the first embedding (a CLI command that never searches never loads it).
   */
  modelLoad?: 'boot' | 'first-use';
}

/** The sentence-embedding model in-process (the embedded profile's default); document vectors persist in the store. */
export const localEmbedderDriver = {
  name: 'local',
  env,
  options: (values): LocalModelOptions => {
    const [modelDir, ...ensembleDirs] = localModelDirs({ ...process.env, TOOLGATE_MODEL_DIR: values.TOOLGATE_MODEL_DIR, TOOLGATE_LOCAL_MODEL: values.TOOLGATE_LOCAL_MODEL });
    return {
      modelDir,
      ...(ensembleDirs.length > 0 ? { ensembleDirs } : {}),
      modelThreads: values.TOOLGATE_EMBEDDING_THREADS,
      modelWorkers: values.TOOLGATE_EMBEDDING_WORKERS,
    };
  },
  // In a worker thread: inference would otherwise hold the event loop for its whole duration.
  create: async (options, { embeddingStore }) => {
    const dir = options.modelDir ?? defaultModelDir();
    const settings = { threads: options.modelThreads, workers: options.modelWorkers, load: options.modelLoad };
    const members = await Promise.all([dir, ...(options.ensembleDirs ?? [])].map((member) => OnnxWorkerPool.create(member, settings)));
    const model = members.length === 1 ? members[0] : new EnsembleEmbedder(members);
    return new CachedEmbedder(model, undefined, undefined, embeddingStore);
  },
} as const satisfies EmbedderDriver<'local', typeof env, Partial<LocalModelOptions>>;
