import type { Run } from '@toolgate/sdk';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../persistence/data-source.factory';
import { RunAuditService } from './run-audit.service';

const run = (id: string): Run => ({
  id,
  status: 'RUNNING',
  traceId: 't',
  planId: 'p',
  owner: { tenant: 'acme', subject: 'alice' },
  steps: [{ id: 's1', tool: 'x/y@1.0.0', status: 'WAITING', attempts: 0, dependsOn: [], startedAt: null, durationMs: 0 }],
  replans: 0,
  startedAt: '2026-03-06T10:00:00.000Z',
  finishedAt: null,
});

describe('RunAuditService on SQLite', () => {
  let dataSource: DataSource;
  let audit: RunAuditService;
  beforeAll(async () => {
    dataSource = await openDataSource({ type: 'sqlite', path: ':memory:' });
    audit = new RunAuditService(dataSource);
  });
  afterAll(() => dataSource.destroy());

  it('lets timers run between queued appends (synchronous SQLite writes would otherwise starve the event loop)', async () => {
    let done = 0;
    const appends = Array.from({ length: 100 }, (_, i) => audit.append({ type: 'RUN_STARTED', at: '2026-03-06T10:00:00.000Z', run: run(`starve-${i}`) }).then(() => void done++));
    const doneWhenTimerFired = await new Promise<number>((resolve) => setTimeout(() => resolve(done), 0));
    await Promise.all(appends);
    expect(done).toBe(100);
    expect(doneWhenTimerFired).toBeLessThan(100);
    await expect(audit.events('starve-99')).resolves.toEqual([{ seq: 1, event: expect.objectContaining({ type: 'RUN_STARTED' }) }]);
  });
});
