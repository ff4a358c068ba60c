import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * The code each plugin version loaded: its code tree and the hash of its contents, so what runs under
 * a version's name can be checked against what was loaded (and installed). Table API, so one
 * migration serves SQLite and PostgreSQL.
 */
export class PluginCode1797000000000 implements MigrationInterface {
  name = 'PluginCode1797000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('plugins', new TableColumn({ name: 'code', type: 'text', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('plugins', 'code');
  }
}
