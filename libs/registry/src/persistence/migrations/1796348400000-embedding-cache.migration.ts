import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** Persistent cache of document vectors, keyed by content hash. Table API, for SQLite and PostgreSQL. */
export class EmbeddingCache1796348400000 implements MigrationInterface {
  name = 'EmbeddingCache1796348400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.createTable(
      new Table({
        name: 'embedding_cache',
        columns: [
          { name: 'key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'model', type: 'varchar', length: '200' },
          { name: 'vector', type: postgres ? 'bytea' : 'blob' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_embedding_cache_model', columnNames: ['model'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('embedding_cache');
  }
}
