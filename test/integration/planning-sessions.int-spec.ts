import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RegistryModule, SessionStoreService, ToolVersionState } from '@toolgate/registry';
import { ErrorCode } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import { type DatabaseKind, testDatabase } from '../support/databases';

describe.each<DatabaseKind>(['sqlite', 'postgres'])('planning sessions on %s', (kind) => {
  let app: INestApplicationContext;
  let drop: () => Promise<void>;
  let sessions: SessionStoreService;
  const alice = { tenant: 'acme', subject: 'alice' };

  beforeAll(async () => {
    const db = await testDatabase(kind);
    drop = db.drop;
    const moduleRef = await Test.createTestingModule({
      imports: [RegistryModule.forRoot({ database: db.options, pluginDirs: [], policyFile: null, newVersionState: ToolVersionState.ACTIVE, sessions: { maxBytes: 2048, ttlMs: 60_000 } })],
    }).compile();
    app = await moduleRef.init();
    sessions = app.get(SessionStoreService);
  });

  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('applies migrations that match the entities exactly', async () => {
    const pending = await app.get(DataSource).driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('keeps state per caller: another subject or tenant with the same session id sees nothing', async () => {
    await sessions.save(alice, 's-1', { turns: [{ text: 'convert 100 USD to EUR' }] });
    await expect(sessions.load(alice, 's-1')).resolves.toEqual({ turns: [{ text: 'convert 100 USD to EUR' }] });
    await expect(sessions.load({ tenant: 'acme', subject: 'bob' }, 's-1')).resolves.toBeNull();
    await expect(sessions.load({ tenant: 'other', subject: 'alice' }, 's-1')).resolves.toBeNull();
    await sessions.save(alice, 's-1', { turns: [] });
    await expect(sessions.load(alice, 's-1')).resolves.toEqual({ turns: [] });
  });

  it('refuses a state over the size bound and keeps what was stored', async () => {
    await sessions.save(alice, 's-2', { note: 'small' });
    await expect(sessions.save(alice, 's-2', { note: 'x'.repeat(4096) })).rejects.toMatchObject({ code: ErrorCode.BUDGET_EXCEEDED });
    await expect(sessions.load(alice, 's-2')).resolves.toEqual({ note: 'small' });
  });

  it('names a malformed session id', async () => {
    await expect(sessions.load(alice, '../etc/passwd')).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/sessionId' }] });
    await expect(sessions.save(alice, '', {})).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
  });

  it('forgets sessions idle past the TTL: not loaded, and pruned by the next write', async () => {
    await sessions.save(alice, 's-old', { a: 1 });
    const rows = app.get(DataSource).getRepository('planning_sessions');
    await rows.update({ sessionId: 's-old' }, { updatedAt: Date.now() - 120_000 });
    await expect(sessions.load(alice, 's-old')).resolves.toBeNull();
    await sessions.save(alice, 's-new', { b: 2 });
    await expect(rows.countBy({ sessionId: 's-old' })).resolves.toBe(0);
  });

  it('forgets a session on request', async () => {
    await sessions.save(alice, 's-3', { a: 1 });
    await expect(sessions.forget(alice, 's-3')).resolves.toBe(true);
    await expect(sessions.load(alice, 's-3')).resolves.toBeNull();
  });
});
