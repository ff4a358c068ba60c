import { Injectable, Logger } from '@nestjs/common';
import { DataSource, In, Not } from 'typeorm';
import { embeddingCacheEntity } from '../persistence/data-source.factory';
import { transaction } from '../persistence/transaction.queue';

/** One vector under its cache key; the shape of retrieval's `StoredEmbedding`, which this lib does not import. */
export interface CachedVector {
  key: string;
  vector: Float32Array;
}

/** Keys per `IN (...)` list and rows per insert: well under the bind-parameter limits of SQLite and PostgreSQL. */
const CHUNK = 500;

const chunks = <T>(items: readonly T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

/** Float32 little-endian, whatever the host's byte order. */
function encodeVector(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes;
}

function decodeVector(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/**
 * Document vectors in the catalog database, keyed by the embedder's content hash, so a restart or a CLI
 * call embeds only texts never embedded with its model. Implements retrieval's `EmbeddingStore` port
 * by shape; the gateway wires it in.
 */
@Injectable()
export class EmbeddingCacheService {
  private readonly logger = new Logger('EmbeddingCache');

  constructor(private readonly dataSource: DataSource) {}

  private get repository() {
    return this.dataSource.getRepository(embeddingCacheEntity(this.dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite'));
  }

  async load(model: string, keys: string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (const chunk of chunks([...new Set(keys)])) {
      const rows = await this.repository.find({ select: { key: true, vector: true }, where: { model, key: In(chunk) } });
      for (const row of rows) found.set(row.key, decodeVector(row.vector));
    }
    return found;
  }

  /** One transaction; a key already stored (another process got there first) is left as it is. */
  async save(model: string, entries: CachedVector[]): Promise<void> {
    if (entries.length === 0) return;
    const createdAt = Date.now();
    const target = this.repository.target;
    await transaction(this.dataSource, async (manager) => {
      for (const chunk of chunks(entries)) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(target)
          .values(chunk.map(({ key, vector }) => ({ key, model, vector: encodeVector(vector), createdAt })))
          .orIgnore()
          .updateEntity(false)
          .execute();
      }
    });
  }

  /** Deletes every other model's vectors; the count deleted. */
  async retainOnly(model: string): Promise<number> {
    const { affected } = await this.repository.delete({ model: Not(model) });
    const removed = affected ?? 0;
    if (removed > 0) this.logger.log({ model, removed }, 'embedding cache: removed the vectors of other models');
    return removed;
  }
}
