import { RunAuditService } from '@toolgate/registry';
import { ErrorCode, type Run, type RunEvent, type RunStep } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import type { DatabaseKind } from '../support/databases';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

const alice = { tenant: 'acme', subject: 'alice' };
const bob = { tenant: 'acme', subject: 'bob' };
const mallory = { tenant: 'evil', subject: 'mallory' };

const at = (second: number) => new Date(Date.UTC(2026, 2, 6, 10, 0, second)).toISOString();

const waiting = (id: string, tool: string, dependsOn: string[] = []): RunStep => ({ id, tool, status: 'WAITING', attempts: 0, dependsOn, startedAt: null, durationMs: 0 });

function newRun(id: string, owner = alice, startedAt = at(0), steps = [waiting('s1', 'units/convert@1.0.0'), waiting('s2', 'calculator/evaluate@1.0.0', ['s1'])]): Run {
  return { id, status: 'RUNNING', traceId: `trace-${id}`, planId: `plan-${id}`, owner, task: 'convert 5 miles to km, then double it', steps, replans: 0, startedAt, finishedAt: null };
}

describe.each<DatabaseKind>(['sqlite', 'postgres'])('run audit on %s', (kind) => {
  let registry: RegistryHarness;
  let audit: RunAuditService;

  beforeAll(async () => {
    registry = await startRegistry(kind);
    audit = registry.app.get(RunAuditService);
  });

  afterAll(async () => {
    await registry?.close();
  });

  it('numbers events 1, 2, 3, ... and keeps the run and its steps current from them', async () => {
    const run = newRun('run-1');
    const s1Done: RunStep = { id: 's1', tool: 'units/convert@1.0.0', status: 'SUCCEEDED', attempts: 2, output: { value: 8.04672, unit: 'km' }, dependsOn: [], startedAt: at(1), durationMs: 12 };
    const s2Failed: RunStep = {
      id: 's2',
      tool: 'calculator/evaluate@1.0.0',
      status: 'FAILED',
      attempts: 1,
      error: { code: ErrorCode.INVALID_ARGUMENTS, message: 'expression is required', path: '/expression' },
      dependsOn: ['s1'],
      startedAt: at(3),
      durationMs: 4,
    };
    const events: RunEvent[] = [
      { type: 'RUN_STARTED', at: at(0), run },
      { type: 'STEP_STARTED', at: at(1), runId: run.id, stepId: 's1', tool: 'units/convert@1.0.0' },
      {
        type: 'ATTEMPT',
        at: at(2),
        runId: run.id,
        stepId: 's1',
        tool: 'units/convert@1.0.0',
        attempt: 1,
        outcome: 'FAILED',
        error: { code: ErrorCode.TIMEOUT, message: 'timed out after 1000 ms' },
        durationMs: 1000.4,
      },
      { type: 'ATTEMPT', at: at(2), runId: run.id, stepId: 's1', tool: 'units/convert@1.0.0', attempt: 2, outcome: 'SUCCEEDED', durationMs: 11.6 },
      { type: 'STEP_FINISHED', at: at(2), runId: run.id, step: s1Done },
      { type: 'STEP_STARTED', at: at(3), runId: run.id, stepId: 's2', tool: 'calculator/evaluate@1.0.0' },
    ];
    const seqs: number[] = [];
    for (const event of events) seqs.push(await audit.append(event));
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);

    const midway = await audit.load(run.id);
    expect(midway?.status).toBe('RUNNING');
    expect(midway?.steps).toEqual([s1Done, { ...waiting('s2', 'calculator/evaluate@1.0.0', ['s1']), status: 'RUNNING', startedAt: at(3) }]);

    const finished: Run = { ...run, status: 'FAILED', steps: [s1Done, s2Failed], reason: 'step s2 failed: expression is required', finishedAt: at(4) };
    await audit.append({ type: 'ATTEMPT', at: at(4), runId: run.id, stepId: 's2', tool: 'calculator/evaluate@1.0.0', attempt: 1, outcome: 'FAILED', error: s2Failed.error, durationMs: 4 });
    await audit.append({ type: 'STEP_FINISHED', at: at(4), runId: run.id, step: s2Failed });
    await audit.append({ type: 'RUN_FINISHED', at: at(4), run: finished });

    await expect(audit.load(run.id)).resolves.toEqual(finished);
    const recorded = await audit.events(run.id);
    expect(recorded.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(recorded.map((e) => e.event)).toEqual([
      ...events,
      expect.objectContaining({ type: 'ATTEMPT', stepId: 's2' }),
      { type: 'STEP_FINISHED', at: at(4), runId: run.id, step: s2Failed },
      { type: 'RUN_FINISHED', at: at(4), run: finished },
    ]);
    await expect(audit.events(run.id, 7)).resolves.toEqual(recorded.slice(7));
    const attempts = await audit.attempts(run.id);
    expect(attempts.map((a) => [a.stepId, a.attempt, a.outcome, a.error?.code ?? null, a.durationMs])).toEqual([
      ['s1', 1, 'FAILED', ErrorCode.TIMEOUT, 1000],
      ['s1', 2, 'SUCCEEDED', null, 12],
      ['s2', 1, 'FAILED', ErrorCode.INVALID_ARGUMENTS, 4],
    ]);
  });

  it('records approvals with who decided, and refuses a decision on nothing pending without writing anything', async () => {
    const run = newRun('run-approval', alice, at(10), [waiting('s1', 'files/delete@1.0.0')]);
    await audit.append({ type: 'RUN_STARTED', at: at(10), run });
    await audit.append({ type: 'APPROVAL_REQUESTED', at: at(11), runId: run.id, stepId: 's1', tool: 'files/delete@1.0.0', reason: 'destructive tool' });
    const pending = await audit.load(run.id);
    expect(pending?.status).toBe('PENDING_APPROVAL');
    expect(pending?.steps[0]).toMatchObject({ status: 'PENDING_APPROVAL', reason: 'destructive tool' });

    await audit.append({ type: 'APPROVAL_DECIDED', at: at(12), runId: run.id, stepId: 's1', approved: true, by: bob, comment: 'fine' });
    await expect(audit.load(run.id)).resolves.toMatchObject({ status: 'RUNNING' });
    await expect(audit.approvals(run.id)).resolves.toEqual([
      { stepId: 's1', tool: 'files/delete@1.0.0', reason: 'destructive tool', status: 'APPROVED', requestedAt: at(11), decidedAt: at(12), decidedBy: bob, comment: 'fine' },
    ]);

    await expect(audit.append({ type: 'APPROVAL_DECIDED', at: at(13), runId: run.id, stepId: 's1', approved: false, by: bob })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      details: [{ path: '/stepId' }],
    });
    // The refused event was rolled back with its transaction: the sequence has no gap.
    await expect(audit.events(run.id)).resolves.toHaveLength(3);
    await expect(audit.append({ type: 'STEP_STARTED', at: at(14), runId: run.id, stepId: 's1', tool: 'files/delete@1.0.0' })).resolves.toBe(4);
  });

  it('refuses an event of a run that never started, a second start, and an instant that is not one', async () => {
    await expect(audit.append({ type: 'STEP_STARTED', at: at(0), runId: 'no-such-run', stepId: 's1', tool: 'units/convert@1.0.0' })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      details: [{ path: '/runId' }],
    });
    await expect(audit.events('no-such-run')).resolves.toEqual([]);
    await audit.append({ type: 'RUN_STARTED', at: at(20), run: newRun('run-twice') });
    await expect(audit.append({ type: 'RUN_STARTED', at: at(21), run: newRun('run-twice') })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/run/id' }] });
    await expect(audit.append({ type: 'STEP_STARTED', at: 'yesterday', runId: 'run-twice', stepId: 's1', tool: 'units/convert@1.0.0' })).rejects.toMatchObject({ details: [{ path: '/at' }] });
    await expect(audit.events('run-twice')).resolves.toHaveLength(1);
  });

  it('asks again for a step asked before: one approval row, pending again, its old decision cleared', async () => {
    const run = newRun('run-asked-twice', alice, at(15), [waiting('s1', 'files/delete@1.0.0')]);
    await audit.append({ type: 'RUN_STARTED', at: at(15), run });
    await audit.append({ type: 'APPROVAL_REQUESTED', at: at(16), runId: run.id, stepId: 's1', tool: 'files/delete@1.0.0', reason: 'destructive tool' });
    await audit.append({ type: 'APPROVAL_DECIDED', at: at(17), runId: run.id, stepId: 's1', approved: false, by: bob, comment: 'not yet' });
    await audit.append({ type: 'APPROVAL_REQUESTED', at: at(18), runId: run.id, stepId: 's1', tool: 'files/delete@1.0.0', reason: 'asked again' });
    await expect(audit.approvals(run.id)).resolves.toEqual([
      { stepId: 's1', tool: 'files/delete@1.0.0', reason: 'asked again', status: 'PENDING', requestedAt: at(18), decidedAt: null, decidedBy: null, comment: null },
    ]);
    await expect(audit.load(run.id)).resolves.toMatchObject({ status: 'PENDING_APPROVAL' });
  });

  it('counts steps waiting for approval per tenant of their run, with the oldest request, and forgets decided ones', async () => {
    const north = { tenant: 'north', subject: 'nina' };
    const south = { tenant: 'south', subject: 'sam' };
    const ask = async (id: string, owner: typeof north, second: number, steps: string[]) => {
      await audit.append({
        type: 'RUN_STARTED',
        at: at(second),
        run: newRun(
          id,
          owner,
          at(second),
          steps.map((step) => waiting(step, 'files/delete@1.0.0')),
        ),
      });
      for (const [i, step] of steps.entries()) {
        await audit.append({ type: 'APPROVAL_REQUESTED', at: at(second + 1 + i), runId: id, stepId: step, tool: 'files/delete@1.0.0', reason: 'destructive tool' });
      }
    };
    await ask('run-north-1', north, 30, ['s1', 's2']);
    await ask('run-north-2', north, 40, ['s1']);
    await ask('run-south-1', south, 50, ['s1']);
    await audit.append({ type: 'APPROVAL_DECIDED', at: at(55), runId: 'run-south-1', stepId: 's1', approved: true, by: south });

    const rows = (await audit.pendingApprovals()).filter((row) => row.tenant === 'north' || row.tenant === 'south');
    expect(rows).toEqual([{ tenant: 'north', pending: 3, oldestRequestedAt: Date.parse(at(31)) }]);
  });

  it("an append never becomes part of another writer's transaction: that one rolling back takes no event with it", async () => {
    const run = newRun('run-beside-rollback', alice, at(19), [waiting('s1', 'units/convert@1.0.0')]);
    await audit.append({ type: 'RUN_STARTED', at: at(19), run });
    let rollBack!: () => void;
    const held = new Promise<void>((resolve) => {
      rollBack = resolve;
    });
    // On SQLite every writer shares one connection; this one stays open across the append below.
    const other = registry.app.get(DataSource).transaction(async (tx) => {
      await tx.query(`UPDATE runs SET task = 'changed by a writer that rolls back' WHERE id = 'run-beside-rollback'`);
      await held;
      throw new Error('the other writer rolls back');
    });
    const appended = audit.append({ type: 'STEP_STARTED', at: at(20), runId: run.id, stepId: 's1', tool: 'units/convert@1.0.0' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    rollBack();
    await expect(other).rejects.toThrow('the other writer rolls back');
    await expect(appended).resolves.toBe(2);
    await expect(audit.events(run.id)).resolves.toHaveLength(2);
    await expect(audit.load(run.id)).resolves.toMatchObject({ task: run.task, steps: [{ id: 's1', status: 'RUNNING' }] });
  });

  it('numbers concurrent events of one run without gaps or duplicates, and adds steps a re-plan introduced', async () => {
    const run = newRun('run-parallel', alice, at(30), []);
    await audit.append({ type: 'RUN_STARTED', at: at(30), run });
    const other = newRun('run-parallel-other', bob, at(30));
    await audit.append({ type: 'RUN_STARTED', at: at(30), run: other });
    const stepIds = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const seqs = await Promise.all([
      ...stepIds.map((stepId) => audit.append({ type: 'ATTEMPT', at: at(31), runId: run.id, stepId, tool: 'text/stats@1.0.0', attempt: 1, outcome: 'SUCCEEDED', durationMs: 1 })),
      ...stepIds.slice(0, 10).map((stepId) => audit.append({ type: 'STEP_STARTED', at: at(31), runId: other.id, stepId, tool: 'text/stats@1.0.0' })),
    ]);
    expect(seqs.slice(0, 40).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(seqs.slice(40).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 2));
    const loaded = await audit.load(run.id);
    expect(loaded?.steps.map((s) => s.id).sort()).toEqual([...stepIds].sort());
    expect(loaded?.steps.every((s) => s.attempts === 1)).toBe(true);
    await expect(audit.attempts(run.id)).resolves.toHaveLength(40);

    await audit.append({ type: 'REPLANNED', at: at(32), runId: run.id, planId: 'plan-2', attempt: 1, reason: 'p0 failed' });
    await expect(audit.load(run.id)).resolves.toMatchObject({ planId: 'plan-2', replans: 1 });
  });

  it('lists runs within one tenant only, newest first, by subject and status', async () => {
    await audit.append({ type: 'RUN_STARTED', at: at(40), run: newRun('list-a1', alice, at(40)) });
    await audit.append({ type: 'RUN_STARTED', at: at(41), run: newRun('list-b1', bob, at(41)) });
    await audit.append({ type: 'RUN_STARTED', at: at(42), run: newRun('list-m1', mallory, at(42)) });
    const finished = { ...newRun('list-a1', alice, at(40)), status: 'SUCCEEDED' as const, finishedAt: at(43) };
    await audit.append({ type: 'RUN_FINISHED', at: at(43), run: finished });

    const acme = await audit.list({ tenant: 'acme' });
    expect(acme.every((r) => r.owner.tenant === 'acme')).toBe(true);
    expect(acme.map((r) => r.id)).toEqual(expect.arrayContaining(['list-a1', 'list-b1']));
    expect(acme.map((r) => r.id)).not.toContain('list-m1');
    const started = acme.map((r) => r.startedAt);
    expect(started).toEqual([...started].sort().reverse());

    const alices = await audit.list({ tenant: 'acme', subject: 'alice' });
    expect(alices.every((r) => r.owner.subject === 'alice')).toBe(true);
    expect(alices.map((r) => r.id)).toContain('list-a1');
    await expect(audit.list({ tenant: 'acme', subject: 'alice', status: 'SUCCEEDED' })).resolves.toEqual([finished]);
    await expect(audit.list({ tenant: 'evil' })).resolves.toEqual([expect.objectContaining({ id: 'list-m1', owner: mallory })]);
    await expect(audit.list({ tenant: 'acme', limit: 1 })).resolves.toHaveLength(1);
    await expect(audit.list({ tenant: 'acme', limit: 0 })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/filter/limit' }] });
    await expect(audit.load('no-such-run')).resolves.toBeNull();
  });

  it('stores each output once (the events carry it back on read), and a listing reads no outputs', async () => {
    const big = { text: 'o'.repeat(50_000) };
    const run = newRun('once-1', alice, at(50), [waiting('s1', 'text/repeat@1.0.0')]);
    const done: RunStep = { ...run.steps[0], status: 'SUCCEEDED', attempts: 1, output: big, startedAt: at(51), durationMs: 3 };
    const events: RunEvent[] = [
      { type: 'RUN_STARTED', at: at(50), run },
      { type: 'STEP_FINISHED', at: at(51), runId: run.id, step: done },
      { type: 'RUN_FINISHED', at: at(52), run: { ...run, status: 'SUCCEEDED', steps: [done], finishedAt: at(52) } },
    ];
    for (const event of events) await audit.append(event);
    const payloads = (await registry.app.get(DataSource).query(`SELECT payload FROM run_events WHERE run_id = 'once-1'`)) as { payload: string }[];
    expect(payloads.map((p) => p.payload.length).reduce((a, b) => a + b)).toBeLessThan(big.text.length);
    await expect(audit.events(run.id)).resolves.toEqual(events.map((event, i) => ({ seq: i + 1, event })));
    await expect(audit.load(run.id)).resolves.toMatchObject({ steps: [{ id: 's1', output: big }] });
    const [listed] = await audit.list({ tenant: 'acme', subject: 'alice', status: 'SUCCEEDED', limit: 1 });
    expect(listed.id).toBe('once-1');
    const { output: _output, ...withoutOutput } = done;
    expect(listed.steps).toEqual([withoutOutput]);
    expect(Object.keys(listed.steps[0])).not.toContain('output');
  });

  it('retention removes runs that finished before the cutoff with all their records, never one in progress or waiting', async () => {
    const old = (id: string) => newRun(id, alice, at(0), [waiting('s1', 'units/convert@1.0.0')]);
    await audit.append({ type: 'RUN_STARTED', at: at(0), run: old('ret-done') });
    await audit.append({ type: 'ATTEMPT', at: at(1), runId: 'ret-done', stepId: 's1', tool: 'units/convert@1.0.0', attempt: 1, outcome: 'SUCCEEDED', durationMs: 1 });
    await audit.append({ type: 'RUN_FINISHED', at: at(2), run: { ...old('ret-done'), status: 'SUCCEEDED', finishedAt: at(2) } });
    await audit.append({ type: 'RUN_STARTED', at: at(0), run: old('ret-running') });
    await audit.append({ type: 'RUN_STARTED', at: at(0), run: old('ret-waiting') });
    await audit.append({ type: 'APPROVAL_REQUESTED', at: at(1), runId: 'ret-waiting', stepId: 's1', tool: 'units/convert@1.0.0', reason: 'needs a person' });
    await audit.append({ type: 'RUN_STARTED', at: at(0), run: old('ret-recent') });
    await audit.append({ type: 'RUN_FINISHED', at: at(30), run: { ...old('ret-recent'), status: 'FAILED', finishedAt: at(30) } });

    const removed = await audit.removeFinished(Date.parse(at(10)), 1);
    expect(removed).toBeGreaterThanOrEqual(1);
    await expect(audit.load('ret-done')).resolves.toBeNull();
    await expect(audit.events('ret-done')).resolves.toEqual([]);
    await expect(audit.attempts('ret-done')).resolves.toEqual([]);
    for (const kept of ['ret-running', 'ret-waiting', 'ret-recent']) await expect(audit.load(kept)).resolves.toMatchObject({ id: kept });
    await expect(audit.approvals('ret-waiting')).resolves.toHaveLength(1);
  });

  it('an orphan is claimed once: two processes racing for it, one wins', async () => {
    await audit.append({ type: 'RUN_STARTED', at: at(0), run: newRun('orphan-1') }, { owner: 'dead-process' });
    await expect(audit.orphans('p1', Date.now() - 60_000, { runId: 'orphan-1' })).resolves.toEqual([]);
    const [seen] = await audit.orphans('p1', Date.now() + 1, { runId: 'orphan-1' });
    expect(seen).toMatchObject({ id: 'orphan-1', status: 'RUNNING', ownerInstance: 'dead-process' });
    const claims = await Promise.all([audit.claim(seen, 'p1'), audit.claim(seen, 'p2')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    await expect(audit.orphans(claims[0] ? 'p1' : 'p2', Date.now() + 1, { runId: 'orphan-1' })).resolves.toEqual([]);
    await audit.release(claims[0] ? 'p1' : 'p2', ['orphan-1']);
    await expect(audit.orphans('p3', 0, { runId: 'orphan-1' })).resolves.toEqual([expect.objectContaining({ id: 'orphan-1', ownerInstance: null })]);
  });
});
