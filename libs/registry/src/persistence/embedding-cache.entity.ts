import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/**
 * One cached document vector. The vector column is binary, which the two drivers name differently
 * (`blob`, `bytea`) and neither accepts the other's name: each driver gets its own entity over the
 * same table, and the columns they share live here.
 */
abstract class EmbeddingCacheColumns {
  /** The embedder's content hash (model, kind, text), base64 sha256. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  /** The model that made the vector; a process keeps only its own model's rows. */
  @Index('ix_embedding_cache_model')
  @Column({ type: 'varchar', length: 200 })
  model!: string;

  /** Float32 values, little-endian. */
  abstract vector: Buffer;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}

@Entity('embedding_cache')
export class SqliteEmbeddingCacheEntity extends EmbeddingCacheColumns {
  @Column({ type: 'blob' })
  vector!: Buffer;
}

@Entity('embedding_cache')
export class PostgresEmbeddingCacheEntity extends EmbeddingCacheColumns {
  @Column({ type: 'bytea' })
  vector!: Buffer;
}

export type EmbeddingCacheEntity = SqliteEmbeddingCacheEntity | PostgresEmbeddingCacheEntity;
