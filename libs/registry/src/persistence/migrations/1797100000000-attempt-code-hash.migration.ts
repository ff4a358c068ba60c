import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/** Each attempt records the hash of the plugin code it ran. Table API, so one migration serves SQLite and PostgreSQL. */
export class AttemptCodeHash1797100000000 implements MigrationInterface {
  name = 'AttemptCodeHash1797100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('step_attempts', new TableColumn({ name: 'code_hash', type: 'varchar', length: '64', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('step_attempts', 'code_hash');
  }
}
