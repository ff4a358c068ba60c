import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** Runs, their steps, attempts, events and approvals. Table API, so one migration serves SQLite and PostgreSQL. */
export class RunAudit1796175600000 implements MigrationInterface {
  name = 'RunAudit1796175600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const runKey = [
      { name: 'run_id', type: 'varchar', length: '64', isPrimary: true },
      { name: 'step_id', type: 'varchar', length: '64', isPrimary: true },
    ];
    await queryRunner.createTable(
      new Table({
        name: 'runs',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'plan_id', type: 'varchar', length: '64' },
          { name: 'tenant', type: 'varchar', length: '200' },
          { name: 'subject', type: 'varchar', length: '200' },
          { name: 'status', type: 'varchar', length: '24' },
          { name: 'trace_id', type: 'varchar', length: '64' },
          { name: 'task', type: 'text', isNullable: true },
          { name: 'replans', type: 'integer' },
          { name: 'reason', type: 'text', isNullable: true },
          { name: 'last_seq', type: 'integer' },
          { name: 'started_at', type: 'bigint' },
          { name: 'finished_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_runs_owner_status_started', columnNames: ['tenant', 'subject', 'status', 'started_at'] }),
          new TableIndex({ name: 'ix_runs_tenant_started', columnNames: ['tenant', 'started_at'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'run_steps',
        columns: [
          ...runKey,
          { name: 'position', type: 'integer' },
          { name: 'tool', type: 'varchar', length: '300' },
          { name: 'status', type: 'varchar', length: '24' },
          { name: 'attempts', type: 'integer' },
          { name: 'output', type: 'text', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'reason', type: 'text', isNullable: true },
          { name: 'fallback_of', type: 'varchar', length: '300', isNullable: true },
          { name: 'depends_on', type: 'text' },
          { name: 'started_at', type: 'bigint', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'step_attempts',
        columns: [
          { name: 'run_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          { name: 'step_id', type: 'varchar', length: '64' },
          { name: 'tool', type: 'varchar', length: '300' },
          { name: 'attempt', type: 'integer' },
          { name: 'outcome', type: 'varchar', length: '16' },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
          { name: 'at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_step_attempts_run_step', columnNames: ['run_id', 'step_id'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'run_events',
        columns: [
          { name: 'run_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          { name: 'type', type: 'varchar', length: '32' },
          { name: 'at', type: 'bigint' },
          { name: 'payload', type: 'text' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'approvals',
        columns: [
          ...runKey,
          { name: 'tool', type: 'varchar', length: '300' },
          { name: 'reason', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'requested_at', type: 'bigint' },
          { name: 'decided_at', type: 'bigint', isNullable: true },
          { name: 'decided_by_tenant', type: 'varchar', length: '200', isNullable: true },
          { name: 'decided_by_subject', type: 'varchar', length: '200', isNullable: true },
          { name: 'comment', type: 'text', isNullable: true },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['approvals', 'run_events', 'step_attempts', 'run_steps', 'runs']) await queryRunner.dropTable(table);
  }
}
