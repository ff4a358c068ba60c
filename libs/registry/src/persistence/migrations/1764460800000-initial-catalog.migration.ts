import { type MigrationInterface, type QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';

/** Catalog, plugins, roles and API keys. Written against the Table API so one migration serves SQLite and PostgreSQL. */
export class InitialCatalog1764460800000 implements MigrationInterface {
  name = 'InitialCatalog1764460800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const timestamp = postgres ? 'timestamp' : 'datetime';
    const now = postgres ? 'now()' : "datetime('now')";
    const timestamps = [
      { name: 'created_at', type: timestamp, default: now },
      { name: 'updated_at', type: timestamp, default: now },
    ];

    await queryRunner.createTable(
      new Table({
        name: 'plugins',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'package_name', type: 'varchar', length: '214' },
          { name: 'version', type: 'varchar', length: '64' },
          { name: 'namespace', type: 'varchar', length: '128' },
          { name: 'path', type: 'varchar', length: '1024' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'tool_count', type: 'integer', default: 0 },
          ...timestamps,
        ],
        uniques: [new TableUnique({ name: 'uq_plugins_package_version', columnNames: ['package_name', 'version'] })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'tool_versions',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tool_id', type: 'varchar', length: '200' },
          { name: 'namespace', type: 'varchar', length: '128' },
          { name: 'name', type: 'varchar', length: '64' },
          { name: 'version', type: 'varchar', length: '64' },
          { name: 'package_name', type: 'varchar', length: '214' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'state_reason', type: 'varchar', length: '500', isNullable: true },
          { name: 'descriptor_hash', type: 'varchar', length: '64' },
          { name: 'risk', type: 'varchar', length: '16' },
          { name: 'descriptor', type: 'text' },
          ...timestamps,
        ],
        uniques: [new TableUnique({ name: 'uq_tool_versions_tool_version', columnNames: ['tool_id', 'version'] })],
        indices: [new TableIndex({ name: 'ix_tool_versions_tool_id', columnNames: ['tool_id'] }), new TableIndex({ name: 'ix_tool_versions_name', columnNames: ['name'] })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'roles',
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'description', type: 'varchar', length: '500', isNullable: true },
          { name: 'admin', type: 'boolean', default: postgres ? false : 0 },
          { name: 'grants', type: 'text' },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          { name: 'key_sha256', type: 'varchar', length: '64', isPrimary: true },
          { name: 'label', type: 'varchar', length: '32' },
          { name: 'tenant', type: 'varchar', length: '128' },
          { name: 'subject', type: 'varchar', length: '128' },
          { name: 'roles', type: 'text' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'roles', 'tool_versions', 'plugins']) await queryRunner.dropTable(table);
  }
}
