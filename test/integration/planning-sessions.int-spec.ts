import type { INestApplicationContext } from '@nestjs/common';
import { SessionStoreService } from '@toolgate/registry';
import { ErrorCode } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import type { DatabaseKind } from '../support/databases';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

describe.each<DatabaseKind>(['sqlite', 'postgres'])('planning sessions on %s', (kind) => {
  let registry: RegistryHarness;
  let app: INestApplicationContext;
  let sessions: SessionStoreService;
  const alice = { tenant: 'acme', subject: 'alice' };

  beforeAll(async () => {
    registry = await startRegistry(kind, { sessions: { maxBytes: 2048, ttlMs: 60_000 } });
    app = registry.app;
    sessions = app.get(SessionStoreService);
  });

  afterAll(async () => {
    await registry?.close();
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
