import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/** Tool integrity: a changed descriptor awaiting approval, scan findings, and who approved the pinned hash. Table API, for SQLite and PostgreSQL. */
export class ToolIntegrity1796262000000 implements MigrationInterface {
  name = 'ToolIntegrity1796262000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('tool_versions', [
      new TableColumn({ name: 'pending_descriptor_hash', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'pending_descriptor', type: 'text', isNullable: true }),
      new TableColumn({ name: 'integrity_findings', type: 'text', isNullable: true }),
      new TableColumn({ name: 'approved_by', type: 'varchar', length: '300', isNullable: true }),
      new TableColumn({ name: 'approved_at', type: 'bigint', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['approved_at', 'approved_by', 'integrity_findings', 'pending_descriptor', 'pending_descriptor_hash']) await queryRunner.dropColumn('tool_versions', column);
  }
}
