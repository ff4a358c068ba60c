import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * What a restart needs to finish or resume a run: which process holds it and when it last said so
 * (owner and heartbeat), and the plan in force with the owner's roles (the resume point); an index for
 * the retention sweep. Table API, so one migration serves SQLite and PostgreSQL. Runs recorded before it
 * have no owner (a restart takes them) and no resume point (a paused one cannot resume: it is ended).
 */
export class RunRecovery1796434800000 implements MigrationInterface {
  name = 'RunRecovery1796434800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('runs', [
      new TableColumn({ name: 'owner_instance', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'heartbeat_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'resume', type: 'text', isNullable: true }),
    ]);
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_status_heartbeat', columnNames: ['status', 'heartbeat_at'] }));
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_status_finished', columnNames: ['status', 'finished_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_status_finished');
    await queryRunner.dropIndex('runs', 'ix_runs_status_heartbeat');
    for (const column of ['resume', 'heartbeat_at', 'owner_instance']) await queryRunner.dropColumn('runs', column);
  }
}
