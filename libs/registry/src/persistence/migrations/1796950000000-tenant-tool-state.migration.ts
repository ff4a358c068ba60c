import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex, TableUnique } from 'typeorm';

/**
 * Admin rights per tenant: tool version states a tenant admin set for its own tenant, and the policy
 * file's `platformAdmin` flag on stored roles. Table API, so one migration serves SQLite and PostgreSQL.
 */
export class TenantToolState1796950000000 implements MigrationInterface {
  name = 'TenantToolState1796950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.createTable(
      new Table({
        name: 'tenant_tool_states',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tenant', type: 'varchar', length: '64' },
          { name: 'tool_id', type: 'varchar', length: '200' },
          { name: 'version', type: 'varchar', length: '64' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'set_by', type: 'varchar', length: '300' },
          { name: 'updated_at', type: 'bigint' },
        ],
        uniques: [new TableUnique({ name: 'uq_tenant_tool_states_tenant_version', columnNames: ['tenant', 'tool_id', 'version'] })],
        indices: [new TableIndex({ name: 'ix_tenant_tool_states_tenant', columnNames: ['tenant'] })],
      }),
    );
    await queryRunner.addColumn('roles', new TableColumn({ name: 'platform_admin', type: 'boolean', default: postgres ? false : 0 }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('roles', 'platform_admin');
    await queryRunner.dropTable('tenant_tool_states');
  }
}
