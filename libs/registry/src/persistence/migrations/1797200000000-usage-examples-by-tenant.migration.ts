import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';

/**
 * Usage examples are read by scope: the bound counts one tenant's rows per tool, and trims a tool's oldest
 * within a tenant. Without an index that leads with the tenant, each learned example scanned every
 * tenant's rows. The tool-id index goes: the unique key (tool_id, tenant, normalized) already leads with
 * it. Table API, so one migration serves SQLite and PostgreSQL.
 */
export class UsageExamplesByTenant1797200000000 implements MigrationInterface {
  name = 'UsageExamplesByTenant1797200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('tool_usage_examples', new TableIndex({ name: 'ix_tool_usage_examples_tenant_tool_created', columnNames: ['tenant', 'tool_id', 'created_at'] }));
    await queryRunner.dropIndex('tool_usage_examples', 'ix_tool_usage_examples_tool_id');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('tool_usage_examples', new TableIndex({ name: 'ix_tool_usage_examples_tool_id', columnNames: ['tool_id'] }));
    await queryRunner.dropIndex('tool_usage_examples', 'ix_tool_usage_examples_tenant_tool_created');
  }
}
