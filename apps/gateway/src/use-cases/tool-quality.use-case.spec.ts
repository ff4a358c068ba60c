import type { RunStore } from '@toolgate/executor';
import type { AccessPolicyService, CatalogService, Principal } from '@toolgate/registry';
import { ErrorCode, type Run, type RunListFilter, type RunStep, ToolgateError } from '@toolgate/sdk';
import { ToolQualityUseCase } from './tool-quality.use-case';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const minutesAgo = (minutes: number): string => new Date(NOW - minutes * 60_000).toISOString();
const principal: Principal = { tenant: 'acme', subject: 'alice', roles: ['dev'] };

const step = (tool: string, status: RunStep['status'], extra: Partial<RunStep> = {}): RunStep => ({
  id: `s${Math.random()}`,
  tool,
  status,
  attempts: 1,
  dependsOn: [],
  startedAt: null,
  durationMs: 10,
  ...extra,
});

let runCount = 0;
const run = (startedMinutesAgo: number, steps: RunStep[], task?: string): Run => ({
  id: `run-${++runCount}`,
  status: 'SUCCEEDED',
  traceId: '0'.repeat(32),
  planId: 'plan',
  owner: { tenant: 'acme', subject: 'alice' },
  ...(task ? { task } : {}),
  steps,
  replans: 0,
  startedAt: minutesAgo(startedMinutesAgo),
  finishedAt: null,
});

/** Every tool version is loaded; the caller may discover all but `secret/*`. */
function setup(runs: Run[]) {
  const list = jest.fn(async (filter: RunListFilter) => runs.slice(0, filter.limit));
  const store = { list } as unknown as RunStore;
  const catalog = { manifest: () => ({ permissions: { risk: 'read' } }) } as unknown as CatalogService;
  const access = { can: (_p: Principal, action: string, toolId: string) => action === 'discover' && !toolId.startsWith('secret/') } as unknown as AccessPolicyService;
  return { useCase: new ToolQualityUseCase(store, catalog, access), list };
}

async function invalid(promise: Promise<unknown>): Promise<ToolgateError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!ToolgateError.is(error, ErrorCode.INVALID_ARGUMENTS)) throw new Error(`expected INVALID_ARGUMENTS, got ${String(error)}`);
  return error;
}

describe('ToolQualityUseCase', () => {
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
  afterEach(() => jest.restoreAllMocks());

  it("reads the tenant's 500 newest runs and computes failure rate, retries and nearest-rank p95", async () => {
    const durations = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    const { useCase, list } = setup([
      run(
        30,
        durations.map((durationMs, i) =>
          step('calc/eval@1.0.0', i < 5 ? 'FAILED' : 'SUCCEEDED', { durationMs, attempts: i % 2 === 0 ? 3 : 1, ...(i < 5 ? { error: { code: ErrorCode.TOOL_FAILED, message: 'x' } } : {}) }),
        ),
      ),
    ]);
    const report = await useCase.execute(principal, {});
    expect(list).toHaveBeenCalledWith({ tenant: 'acme', limit: 500 });
    const [calc] = report.tools;
    expect(calc).toMatchObject({ tool: 'calc/eval@1.0.0', toolId: 'calc/eval', version: '1.0.0', calls: 20, failures: 5, failureRate: 0.25, retries: 20, p95Ms: 190 });
    expect(calc.failingQueries).toHaveLength(5);
    expect(calc.failingQueries[0]).toMatchObject({ code: ErrorCode.TOOL_FAILED, task: null });
  });

  it('counts a FALLBACK step as a failed call of the replaced tool and a successful one of the fallback', async () => {
    const { useCase } = setup([
      run(10, [step('text/echo@2.0.0', 'FALLBACK', { fallbackOf: 'text/shout@1.0.0', attempts: 4, durationMs: 300 })], 'shout hello'),
      run(20, [step('text/echo@2.0.0', 'FAILED', { fallbackOf: 'text/shout@1.0.0', attempts: 2, durationMs: 50, error: { code: ErrorCode.TIMEOUT, message: 'slow' } })], 'shout again'),
    ]);
    const { tools } = await useCase.execute(principal, {});
    const shout = tools.find((t) => t.tool === 'text/shout@1.0.0');
    const echo = tools.find((t) => t.tool === 'text/echo@2.0.0');
    // The step's attempts beyond one per call, and its duration, are the replaced tool's.
    expect(shout).toMatchObject({ calls: 2, failures: 2, failureRate: 1, retries: 2, p95Ms: 300 });
    expect(shout?.failingQueries.map((q) => [q.task, q.code])).toEqual([
      ['shout hello', 'FAILED'],
      ['shout again', 'FAILED'],
    ]);
    expect(echo).toMatchObject({ calls: 2, failures: 1, failureRate: 0.5, retries: 0, p95Ms: null });
    expect(echo?.failingQueries.map((q) => [q.task, q.code])).toEqual([['shout again', ErrorCode.TIMEOUT]]);
  });

  it('counts only SUCCEEDED, FAILED and FALLBACK steps of runs started in the window', async () => {
    const { useCase } = setup([
      run(5, [step('a/x@1.0.0', 'SKIPPED'), step('a/x@1.0.0', 'CANCELLED'), step('a/x@1.0.0', 'PENDING_APPROVAL'), step('a/x@1.0.0', 'SUCCEEDED')]),
      run(23 * 60, [step('a/x@1.0.0', 'FAILED')]),
      run(25 * 60, [step('a/x@1.0.0', 'FAILED'), step('b/y@1.0.0', 'FAILED')]),
    ]);
    const report = await useCase.execute(principal, {});
    expect(report.runsConsidered).toBe(2);
    expect(report.truncated).toBe(false);
    expect(report.tools.map((t) => [t.tool, t.calls, t.failures])).toEqual([['a/x@1.0.0', 2, 1]]);
  });

  it('buckets calls by step start (run start without one) from the window start', async () => {
    const { useCase } = setup([
      run(50, [step('a/x@1.0.0', 'SUCCEEDED', { startedAt: minutesAgo(5), durationMs: 7 })]),
      run(50, [step('a/x@1.0.0', 'FAILED', { attempts: 2, durationMs: 40 })]),
      run(170, [step('a/x@1.0.0', 'SUCCEEDED', { durationMs: 3 })]),
    ]);
    const report = await useCase.execute(principal, { sinceHours: 3, bucketMinutes: 60 });
    expect(report).toMatchObject({ since: minutesAgo(180), until: minutesAgo(0), bucketMinutes: 60 });
    expect(report.tools[0].series).toEqual([
      { start: minutesAgo(180), calls: 1, failures: 0, retries: 0, p95Ms: 3 },
      { start: minutesAgo(120), calls: 0, failures: 0, retries: 0, p95Ms: null },
      { start: minutesAgo(60), calls: 2, failures: 1, retries: 1, p95Ms: 40 },
    ]);
    expect(report.tools[0].failingQueries).toEqual([{ runId: expect.any(String), task: null, code: 'FAILED', at: minutesAgo(50) }]);
  });

  it('lists the weakest tools first: failure rate, then failures, then calls, then id', async () => {
    const ok = (tool: string, n: number) => Array.from({ length: n }, () => step(tool, 'SUCCEEDED'));
    const bad = (tool: string, n: number) => Array.from({ length: n }, () => step(tool, 'FAILED'));
    const { useCase } = setup([
      run(1, [...bad('e/half-big@1.0.0', 2), ...ok('e/half-big@1.0.0', 2), ...bad('d/half@1.0.0', 1), ...ok('d/half@1.0.0', 1)]),
      run(2, [...bad('c/all@1.0.0', 1), ...ok('b/fine@1.0.0', 3), ...ok('a/fine@1.0.0', 3), ...ok('z/busy@1.0.0', 9)]),
    ]);
    const { tools } = await useCase.execute(principal, {});
    expect(tools.map((t) => t.tool)).toEqual(['c/all@1.0.0', 'e/half-big@1.0.0', 'd/half@1.0.0', 'z/busy@1.0.0', 'a/fine@1.0.0', 'b/fine@1.0.0']);
  });

  it('keeps the 5 most recent failures per tool, newest first', async () => {
    const runs = Array.from({ length: 7 }, (_, i) => run(10 + i, [step('a/x@1.0.0', 'FAILED', { error: { code: ErrorCode.INVALID_ARGUMENTS, message: 'bad' } })], `task ${i}`));
    const { useCase } = setup(runs);
    const { tools } = await useCase.execute(principal, {});
    expect(tools[0].failingQueries.map((q) => q.task)).toEqual(['task 0', 'task 1', 'task 2', 'task 3', 'task 4']);
  });

  it('reports no tool version the caller may not discover', async () => {
    const { useCase } = setup([run(1, [step('secret/tool@1.0.0', 'FAILED'), step('a/x@1.0.0', 'SUCCEEDED')])]);
    const { tools } = await useCase.execute(principal, {});
    expect(tools.map((t) => t.tool)).toEqual(['a/x@1.0.0']);
  });

  it('is truncated when the store returned 500 runs and the oldest is still in the window', async () => {
    const full = Array.from({ length: 500 }, (_, i) => run(i, [step('a/x@1.0.0', 'SUCCEEDED')]));
    expect(await setup(full).useCase.execute(principal, {})).toMatchObject({ runsConsidered: 500, truncated: true });
    const older = Array.from({ length: 500 }, (_, i) => run(i < 400 ? i : 48 * 60, [step('a/x@1.0.0', 'SUCCEEDED')]));
    expect(await setup(older).useCase.execute(principal, {})).toMatchObject({ runsConsidered: 400, truncated: false });
  });

  it.each([
    [{ sinceHours: 0 }, '/sinceHours', 'from 1 to 720'],
    [{ sinceHours: 721 }, '/sinceHours', 'from 1 to 720'],
    [{ sinceHours: 1.5 }, '/sinceHours', 'integer'],
    [{ bucketMinutes: 4 }, '/bucketMinutes', 'from 5 to 1440'],
    [{ bucketMinutes: 1441 }, '/bucketMinutes', 'from 5 to 1440'],
    [{ bucketMinutes: 7.5 }, '/bucketMinutes', 'integer'],
    [{ sinceHours: 720, bucketMinutes: 60 }, '/bucketMinutes', 'at most 200 buckets'],
  ])('refuses %j with INVALID_ARGUMENTS at %s', async (command, path, words) => {
    const { useCase, list } = setup([]);
    const error = await invalid(useCase.execute(principal, command));
    expect(error.message).toContain(words);
    expect(error.details).toEqual([{ path, message: expect.stringContaining(words) }]);
    expect(list).not.toHaveBeenCalled();
  });

  it('accepts exactly 200 buckets', async () => {
    const report = await setup([]).useCase.execute(principal, { sinceHours: 50, bucketMinutes: 15 });
    expect(report).toMatchObject({ bucketMinutes: 15, runsConsidered: 0, truncated: false, tools: [] });
  });
});
