import { randomUUID } from 'node:crypto';
import { type MigrationInterface, type QueryRunner, TableColumn, TableUnique } from 'typeorm';

/** Not a policy identifier (those start with a letter or digit): no caller's tenant ever sees these rows. */
export const UNATTRIBUTED_EXAMPLES = '#unattributed';

const normalize = (query: string): string => query.trim().replace(/\s+/g, ' ').toLowerCase();

interface ExampleRow {
  id: string;
  tool_id: string;
  query: string;
  normalized: string;
  source: string;
  created_at: unknown;
}

/**
 * Usage examples learned from runs belong to the tenant whose run taught them (issue 10, item 3).
 * Existing learned rows are given to every tenant that ran a task with that text (the runs audit says
 * who); rows no run explains are kept but shown to nobody. Imported rows stay platform-wide ('').
 */
export class TenantScopedLearning1796900000000 implements MigrationInterface {
  name = 'TenantScopedLearning1796900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tool_usage_examples', new TableColumn({ name: 'tenant', type: 'varchar', length: '200', default: "''" }));
    await queryRunner.dropUniqueConstraint('tool_usage_examples', 'uq_tool_usage_examples_tool_normalized');
    const tenantsOf = new Map<string, Set<string>>();
    const runs = (await queryRunner.query('SELECT DISTINCT tenant, task FROM runs WHERE task IS NOT NULL')) as { tenant: string; task: string }[];
    for (const { tenant, task } of runs) tenantsOf.set(normalize(task), (tenantsOf.get(normalize(task)) ?? new Set()).add(tenant));
    const learned = (await queryRunner.query("SELECT id, tool_id, query, normalized, source, created_at FROM tool_usage_examples WHERE source = 'execution'")) as ExampleRow[];
    const p = (n: number) => (queryRunner.connection.options.type === 'postgres' ? `$${n}` : '?');
    for (const row of learned) {
      const [first, ...others] = [...(tenantsOf.get(row.normalized) ?? [UNATTRIBUTED_EXAMPLES])];
      await queryRunner.query(`UPDATE tool_usage_examples SET tenant = ${p(1)} WHERE id = ${p(2)}`, [first, row.id]);
      for (const tenant of others) {
        await queryRunner.query(`INSERT INTO tool_usage_examples (id, tool_id, tenant, query, normalized, source, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)})`, [
          randomUUID(),
          row.tool_id,
          tenant,
          row.query,
          row.normalized,
          row.source,
          row.created_at,
        ]);
      }
    }
    await queryRunner.createUniqueConstraint('tool_usage_examples', new TableUnique({ name: 'uq_tool_usage_examples_tool_tenant_normalized', columnNames: ['tool_id', 'tenant', 'normalized'] }));
  }

  /** Back to one example per (tool, query): a query several tenants taught is kept once, the platform's copy first. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropUniqueConstraint('tool_usage_examples', 'uq_tool_usage_examples_tool_tenant_normalized');
    const rows = (await queryRunner.query('SELECT id, tool_id, tenant, normalized FROM tool_usage_examples ORDER BY tenant, id')) as { id: string; tool_id: string; normalized: string }[];
    const seen = new Set<string>();
    const p = queryRunner.connection.options.type === 'postgres' ? '$1' : '?';
    for (const row of rows) {
      const key = `${row.tool_id}\n${row.normalized}`;
      if (seen.has(key)) await queryRunner.query(`DELETE FROM tool_usage_examples WHERE id = ${p}`, [row.id]);
      seen.add(key);
    }
    await queryRunner.dropColumn('tool_usage_examples', 'tenant');
    await queryRunner.createUniqueConstraint('tool_usage_examples', new TableUnique({ name: 'uq_tool_usage_examples_tool_normalized', columnNames: ['tool_id', 'normalized'] }));
  }
}
