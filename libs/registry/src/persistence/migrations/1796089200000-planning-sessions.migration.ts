import { type MigrationInterface, type QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';

/** Conversation state per (tenant, subject, session id). Table API, so one migration serves SQLite and PostgreSQL. */
export class PlanningSessions1796089200000 implements MigrationInterface {
  name = 'PlanningSessions1796089200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'planning_sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tenant', type: 'varchar', length: '200' },
          { name: 'subject', type: 'varchar', length: '200' },
          { name: 'session_id', type: 'varchar', length: '128' },
          { name: 'state', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
        uniques: [new TableUnique({ name: 'uq_planning_sessions_owner_session', columnNames: ['tenant', 'subject', 'session_id'] })],
        indices: [new TableIndex({ name: 'ix_planning_sessions_updated_at', columnNames: ['updated_at'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('planning_sessions');
  }
}
