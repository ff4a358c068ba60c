import { type MigrationInterface, type QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';

/** Usage examples per tool (learning from usage). Table API, so one migration serves SQLite and PostgreSQL. */
export class ToolUsageExamples1796002800000 implements MigrationInterface {
  name = 'ToolUsageExamples1796002800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.createTable(
      new Table({
        name: 'tool_usage_examples',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tool_id', type: 'varchar', length: '200' },
          { name: 'query', type: 'text' },
          { name: 'normalized', type: 'varchar', length: '500' },
          { name: 'source', type: 'varchar', length: '16' },
          { name: 'created_at', type: postgres ? 'timestamp' : 'datetime', default: postgres ? 'now()' : "datetime('now')" },
        ],
        uniques: [new TableUnique({ name: 'uq_tool_usage_examples_tool_normalized', columnNames: ['tool_id', 'normalized'] })],
        indices: [new TableIndex({ name: 'ix_tool_usage_examples_tool_id', columnNames: ['tool_id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_usage_examples');
  }
}
