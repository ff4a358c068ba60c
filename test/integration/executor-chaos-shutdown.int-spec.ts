import type { Invocation } from '@toolgate/executor';
import type { Plan } from '@toolgate/planner';
import { openDataSource, RunAuditService } from '@toolgate/registry';
import { ErrorCode, type Run, type RunEvent, ToolgateError } from '@toolgate/sdk';
import { type ChaosHarness, startChaosExecutor, step } from './executor-fixtures';

/*
 * Shutdown with tool calls in flight, through the production stack (PlanRunner, ResilientToolInvoker,
 * TypeORM recorder on SQLite), closing the Nest application. Runs in progress are cancelled by the
 * runner at once (before the database closes); calls made straight through the invoker (e.g. health
 * probes) get the drain: those that end within the drain timeout finish, the rest are cancelled.
 */
const nap = (id: string, ms: number, dependsOn: string[] = []) => step(id, 'chaos/nap', { key: id, ms }, dependsOn);
const planOf = (id: string, ...steps: ReturnType<typeof nap>[]): Plan => ({ id, decision: 'USE_TOOLS', steps });

const direct = (key: string, ms: number): Invocation => ({
  toolId: 'chaos/nap',
  version: '1.0.0',
  arguments: { key, ms },
  principal: { tenant: 'acme', subject: 'prober' },
  runId: 'direct',
  stepId: key,
  attempt: 1,
  callId: `call-${key}`,
  idempotencyKey: `direct:${key}`,
  signal: new AbortController().signal,
});

describe('shutdown with calls in flight (SQLite audit)', () => {
  let h: ChaosHarness;
  beforeAll(async () => {
    h = await startChaosExecutor({ database: 'sqlite', isolation: 'none', seed: 1, faultRate: 0, repeatRate: 0, drainTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await h?.close().catch(() => undefined);
  });

  it('closing the app cancels runs with a reason and completes their audit, drains short direct calls and cancels the rest', async () => {
    const plans = [
      planOf('slow-1', nap('s1', 8000)),
      planOf('slow-2', nap('s1', 8000)),
      // s1 finishes before the shutdown; s2 is in flight; s3 waits for s2.
      planOf('chain', nap('s1', 10), nap('s2', 8000, ['s1']), nap('s3', 10, ['s2'])),
      planOf('fan', nap('s1', 8000), nap('s2', 8000), nap('s3', 10, ['s1', 's2'])),
    ];
    const runs = plans.map((plan) => h.runner.execute(plan, h.owner, { runId: `shutdown-${plan.id}` }));
    const quick = h.resilient.invoke(direct('quick', 300));
    const stuck = h.resilient.invoke(direct('stuck', 8000)).catch((error: unknown) => error);
    // Every call above has reached the tool (2 + 2 of chain + 2 of fan + 2 direct).
    for (const until = Date.now() + 10_000; h.chaos.attempts < 8 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(h.chaos.attempts).toBe(8);

    await h.close();

    const finished: Run[] = await Promise.all(runs);
    expect(finished.map((r) => [r.id, r.status])).toEqual(plans.map((p) => [`shutdown-${p.id}`, 'CANCELLED']));
    expect(finished.every((r) => r.reason?.includes('shut down'))).toBe(true);
    await expect(quick).resolves.toEqual({ key: 'quick', value: 'rested' });
    // The drain waited for the quick call; the 8 s one was cancelled when the drain timeout passed.
    const chaosCode = h.catalog.packageCode('chaos/nap', '1.0.0')?.hash;
    expect(chaosCode).toMatch(/^[0-9a-f]{64}$/);
    const cancelled = await stuck;
    expect(ToolgateError.is(cancelled, ErrorCode.CANCELLED)).toBe(true);

    // The audit, read back from the database after the app closed: one final outcome per step, a reason for each cancellation.
    const dataSource = await openDataSource(h.database);
    try {
      const audit = new RunAuditService(dataSource);
      for (const run of finished) {
        const stored = await audit.load(run.id);
        expect(stored).toMatchObject({ status: 'CANCELLED', reason: run.reason, finishedAt: expect.any(String) });
        const events = (await audit.events(run.id)).map((e) => e.event as RunEvent);
        const stepsFinished = events.filter((e): e is Extract<RunEvent, { type: 'STEP_FINISHED' }> => e.type === 'STEP_FINISHED').map((e) => e.step.id);
        expect(stepsFinished.sort()).toEqual(run.steps.map((s) => s.id).sort());
        expect(events.filter((e) => e.type === 'RUN_FINISHED')).toHaveLength(1);
        for (const s of stored?.steps ?? []) {
          if (run.id === 'shutdown-chain' && s.id === 's1') expect(s).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
          else expect(s).toMatchObject({ status: 'CANCELLED', reason: expect.stringContaining('shut down') });
        }
        // A call in flight leaves its one attempt, failed as CANCELLED; a step that never started has none.
        const attempts = await audit.attempts(run.id);
        for (const s of stored?.steps ?? []) {
          const mine = attempts.filter((a) => a.stepId === s.id);
          // Each attempt names the plugin code it ran: the hash the catalog loaded for @fixtures/chaos@1.0.0.
          expect(mine.every((a) => a.codeHash === chaosCode)).toBe(true);
          if (s.status === 'SUCCEEDED') expect(mine.map((a) => a.outcome)).toEqual(['SUCCEEDED']);
          else if (s.startedAt) expect(mine.map((a) => a.error?.code)).toEqual([ErrorCode.CANCELLED]);
          else expect(mine).toEqual([]);
        }
      }
    } finally {
      await dataSource.destroy();
    }
  });
});
