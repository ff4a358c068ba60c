import { RunEventBus, RunStore, TypeormRunStore } from '@toolgate/executor';
import { RunAuditService } from '@toolgate/registry';
import { ErrorCode, type Run, type RunListFilter, type SequencedRunEvent } from '@toolgate/sdk';
import type { DatabaseKind } from '../support/databases';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

const owner = { tenant: 'acme', subject: 'alice' };
const run = (id: string): Run => ({
  id,
  status: 'RUNNING',
  traceId: 'trace-1',
  planId: 'plan-1',
  owner,
  task: 'convert 5 miles to km',
  steps: [{ id: 's1', tool: 'units/convert@1.0.0', status: 'WAITING', attempts: 0, dependsOn: [], startedAt: null, durationMs: 0 }],
  replans: 0,
  startedAt: '2026-03-06T10:00:00.000Z',
  finishedAt: null,
});

describe.each<DatabaseKind>(['sqlite', 'postgres'])('TypeormRunStore on %s', (kind) => {
  let registry: RegistryHarness;
  let recorder: RunStore;
  let bus: RunEventBus;
  let audit: RunAuditService;

  beforeAll(async () => {
    registry = await startRegistry(kind, { providers: [RunEventBus, { provide: RunStore, useClass: TypeormRunStore }] });
    recorder = registry.app.get(RunStore);
    bus = registry.app.get(RunEventBus);
    audit = registry.app.get(RunAuditService);
  });

  afterAll(async () => {
    await registry?.close();
  });

  it('publishes each event after it is persisted, with its sequence number, and nothing for a refused one', async () => {
    const seen: { published: SequencedRunEvent; persisted: number[] }[] = [];
    const checks: Promise<void>[] = [];
    const subscription = bus.of('rec-1').subscribe((published) => {
      checks.push(audit.events('rec-1').then((rows) => void seen.push({ published, persisted: rows.map((r) => r.seq) })));
    });
    await recorder.record({ type: 'RUN_STARTED', at: '2026-03-06T10:00:00.000Z', run: run('rec-1') });
    await recorder.record({ type: 'STEP_STARTED', at: '2026-03-06T10:00:01.000Z', runId: 'rec-1', stepId: 's1', tool: 'units/convert@1.0.0' });
    await expect(recorder.record({ type: 'APPROVAL_DECIDED', at: '2026-03-06T10:00:02.000Z', runId: 'rec-1', stepId: 's1', approved: true, by: owner })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
    });
    subscription.unsubscribe();
    await Promise.all(checks);
    expect(seen.map((s) => [s.published.seq, s.published.event.type])).toEqual([
      [1, 'RUN_STARTED'],
      [2, 'STEP_STARTED'],
    ]);
    for (const { published, persisted } of seen) expect(persisted).toContain(published.seq);
    await expect(recorder.events('rec-1')).resolves.toHaveLength(2);
    await expect(recorder.load('rec-1')).resolves.toMatchObject({ id: 'rec-1', steps: [{ id: 's1', status: 'RUNNING' }] });
  });

  it('lists runs per owner only', async () => {
    await expect(recorder.list({ tenant: owner.tenant, subject: owner.subject })).resolves.toEqual([expect.objectContaining({ id: 'rec-1', owner })]);
    await expect(recorder.list({ tenant: 'other', subject: 'alice' })).resolves.toEqual([]);
    await expect(recorder.list({} as RunListFilter)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/filter/tenant' }] });
  });
});
