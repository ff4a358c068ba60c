import { DataSource } from 'typeorm';
import { type DatabaseKind, testDatabase } from '../../../../../test/support/databases';
import { dataSourceOptions, REGISTRY_MIGRATIONS } from '../data-source.factory';
import { TenantScopedLearning1796900000000, UNATTRIBUTED_EXAMPLES } from './1796900000000-tenant-scoped-learning.migration';

describe.each<DatabaseKind>(['sqlite', 'postgres'])('tenant-scoped learning migration on %s', (kind) => {
  it('gives each learned example to the tenants whose runs taught it, keeps imports platform-wide, and loses no row', async () => {
    const db = await testDatabase(kind);
    // A database as it was just before this migration: the ones after it may build on its columns.
    const at = REGISTRY_MIGRATIONS.indexOf(TenantScopedLearning1796900000000);
    const before = REGISTRY_MIGRATIONS.slice(0, at);
    const old = new DataSource({ ...dataSourceOptions(db.options), migrations: before });
    await old.initialize();
    await old.runMigrations();
    const p = (n: number) => (kind === 'postgres' ? `$${n}` : '?');
    const run = (id: string, tenant: string, task: string) =>
      old.query(`INSERT INTO runs (id, plan_id, tenant, subject, status, trace_id, task, replans, last_seq, started_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(p).join(', ')})`, [
        id,
        'plan',
        tenant,
        'someone',
        'SUCCEEDED',
        '0'.repeat(32),
        task,
        0,
        1,
        1,
      ]);
    await run('r1', 'acme', 'Convert 5  miles to km');
    await run('r2', 'globex', 'convert 5 miles to km');
    await run('r3', 'globex', 'zorblax the figures');
    const example = (id: string, query: string, source: string) =>
      old.query(`INSERT INTO tool_usage_examples (id, tool_id, query, normalized, source) VALUES (${[1, 2, 3, 4, 5].map(p).join(', ')})`, [
        id,
        'units/convert',
        query,
        query.trim().replace(/\s+/g, ' ').toLowerCase(),
        source,
      ]);
    await example('e1', 'convert 5 miles to km', 'execution');
    await example('e2', 'zorblax the figures', 'execution');
    await example('e3', 'a query no run remembers', 'execution');
    await example('e4', 'how far is a mile', 'import');
    await old.destroy();

    const migrated = new DataSource(dataSourceOptions(db.options));
    await migrated.initialize();
    await migrated.runMigrations();
    const rows = (await migrated.query('SELECT query, tenant, source FROM tool_usage_examples ORDER BY query, tenant')) as { query: string; tenant: string; source: string }[];
    expect(rows).toEqual([
      { query: 'a query no run remembers', tenant: UNATTRIBUTED_EXAMPLES, source: 'execution' },
      { query: 'convert 5 miles to km', tenant: 'acme', source: 'execution' },
      { query: 'convert 5 miles to km', tenant: 'globex', source: 'execution' },
      { query: 'how far is a mile', tenant: '', source: 'import' },
      { query: 'zorblax the figures', tenant: 'globex', source: 'execution' },
    ]);
    // The same query may now be learned by two tenants, and still only once by each.
    await expect(
      migrated.query(`INSERT INTO tool_usage_examples (id, tool_id, tenant, query, normalized, source) VALUES (${[1, 2, 3, 4, 5, 6].map(p).join(', ')})`, [
        'e9',
        'units/convert',
        'acme',
        'x',
        'convert 5 miles to km',
        'execution',
      ]),
    ).rejects.toThrow();
    for (let undone = REGISTRY_MIGRATIONS.length; undone > at; undone--) await migrated.undoLastMigration();
    expect(((await migrated.query('SELECT query FROM tool_usage_examples')) as unknown[]).length).toBe(4);
    await migrated.destroy();
    await db.drop();
  });
});
