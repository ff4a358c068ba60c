import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, ToolgateError, type ToolLimits, type ToolManifest } from '@toolgate/sdk';
import type { AttemptReport, Invocation } from '../runtime/tool-invoker.port';
import { ToolInvoker } from '../runtime/tool-invoker.port';
import { breakerOpens, breakerState, concurrencyRejections } from '../telemetry/executor.instruments';
import { AdaptiveBreaker } from './adaptive.breaker';
import { DEFAULT_RESILIENCE_OPTIONS, type ResilienceOptions } from './resilience.config';
import { ResilientToolInvoker } from './resilient.tool-invoker';

/** A metric's value for exactly these labels (0 before any), from prom-client's default registry. */
async function metricValue(metric: { get(): Promise<{ values: { labels: Record<string, string | number>; value: number }[] }> }, labels: Record<string, string>): Promise<number> {
  const { values } = await metric.get();
  const same = (l: Record<string, string | number>) => Object.keys(labels).length === Object.keys(l).length && Object.entries(labels).every(([k, v]) => l[k] === v);
  return values.find((v) => same(v.labels))?.value ?? 0;
}

type Behaviour = (invocation: Invocation) => Promise<unknown>;

/** Fault injection: a ToolInvoker whose behaviour each test scripts, counting the calls that reach it. */
class ScriptedInvoker extends ToolInvoker {
  readonly calls: Invocation[] = [];
  constructor(private readonly behaviours: Record<string, Behaviour>) {
    super();
  }
  invoke(invocation: Invocation): Promise<unknown> {
    this.calls.push(invocation);
    return this.behaviours[invocation.toolId](invocation);
  }
  callsOf(toolId: string): number {
    return this.calls.filter((c) => c.toolId === toolId).length;
  }
}

const hang: Behaviour = () => new Promise(() => {});
const failWith =
  (code: ErrorCode, extra: Record<string, unknown> = {}): Behaviour =>
  async () => {
    throw Object.assign(new ToolgateError(code, `injected ${code}`), extra);
  };
const succeed: Behaviour = async (inv) => ({ echoed: inv.arguments });

function catalog(limits: Record<string, Partial<ToolLimits>>, tenants = 1) {
  return {
    manifest: (toolId: string) =>
      limits[toolId] ? ({ name: toolId, limits: { timeoutMs: 1000, maxConcurrency: 8, retries: 0, idempotent: true, ...limits[toolId] } } as unknown as ToolManifest) : undefined,
    tenantCount: () => tenants,
  };
}

const options = (over: Partial<ResilienceOptions['breaker']> = {}): ResilienceOptions => ({
  ...DEFAULT_RESILIENCE_OPTIONS,
  breaker: { ...DEFAULT_RESILIENCE_OPTIONS.breaker, consecutiveFailures: 3, halfOpenAfterMs: 60_000, busyRps: 1000, ...over },
  retry: { baseDelayMs: 1, maxDelayMs: 5 },
  drainTimeoutMs: 50,
});

let sequence = 0;
function call(toolId: string, extra: Partial<Invocation> = {}): Invocation {
  sequence++;
  return {
    toolId,
    version: '1.0.0',
    arguments: { n: sequence },
    principal: { tenant: 't1', subject: 'alice' },
    runId: 'run-1',
    stepId: `s${sequence}`,
    attempt: 1,
    callId: `call-${sequence}`,
    idempotencyKey: `key-${sequence}`,
    signal: new AbortController().signal,
    ...extra,
  };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'OK',
    (e: unknown) => (ToolgateError.is(e) ? e.code : `untyped: ${String(e)}`),
  );

/** Timers and sockets Node has open (file reads of the test runner come and go, so they are left out). */
const openResources = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => /Timeout|Immediate|TCP|Socket|UDP/i.test(r))
    .sort();

describe('ResilientToolInvoker', () => {
  it('ends a hanging call with TIMEOUT, aborts the attempt signal, and leaves no timer or handle behind', async () => {
    const inner = new ScriptedInvoker({ 'x/hang': hang });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/hang': { timeoutMs: 30 } }), options());
    const before = openResources();
    await expect(codeOf(invoker.invoke(call('x/hang')))).resolves.toBe(ErrorCode.TIMEOUT);
    expect(inner.calls[0].signal.aborted).toBe(true);
    await sleep(5);
    // Timers of the test harness may end meanwhile; the call must not leave any of its own.
    const counts = (resources: string[]) => {
      const byKind: Record<string, number> = {};
      for (const kind of resources) byKind[kind] = (byKind[kind] ?? 0) + 1;
      return byKind;
    };
    const after = counts(openResources());
    for (const [kind, count] of Object.entries(after)) expect(count).toBeLessThanOrEqual(counts(before)[kind] ?? 0);
  });

  it('opens the breaker after consecutive failures; later calls fail fast with CIRCUIT_OPEN and never reach the tool', async () => {
    const inner = new ScriptedInvoker({ 'x/down': failWith(ErrorCode.TOOL_FAILED) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/down': {} }), options({ consecutiveFailures: 3 }));
    const labels = { tool: 'x/down', version: '1.0.0', tenant: 't1' };
    const opensBefore = await metricValue(breakerOpens, labels);
    for (let i = 0; i < 3; i++) await expect(codeOf(invoker.invoke(call('x/down')))).resolves.toBe(ErrorCode.TOOL_FAILED);
    expect(invoker.breakerState('x/down', '1.0.0', 't1')).toMatchObject({ state: 'OPEN', failures: 3, lastFailure: { code: ErrorCode.TOOL_FAILED } });
    // What /metrics says: open (2), opened once.
    expect(await metricValue(breakerState, labels)).toBe(2);
    expect((await metricValue(breakerOpens, labels)) - opensBefore).toBe(1);

    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await expect(codeOf(invoker.invoke(call('x/down')))).resolves.toBe(ErrorCode.CIRCUIT_OPEN);
      latencies.push(performance.now() - started);
    }
    expect(inner.callsOf('x/down')).toBe(3);
    latencies.sort((a, b) => a - b);
    // A figure for the closing note, never an assertion.
    console.log(JSON.stringify({ figure: 'fail-fast latency with an open breaker (ms)', calls: 200, p50: latencies[100].toFixed(3), p99: latencies[198].toFixed(3), max: latencies[199].toFixed(3) }));
  });

  it('half-open admits exactly one probe: concurrent callers wait for it and are refused when it fails; a passing probe closes the breaker', async () => {
    let healthy = false;
    const inner = new ScriptedInvoker({ 'x/flaky': async () => (healthy ? { ok: true } : failWith(ErrorCode.TOOL_FAILED)(call('x'))) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/flaky': {} }), options({ consecutiveFailures: 2, halfOpenAfterMs: 40 }));
    for (let i = 0; i < 2; i++) await codeOf(invoker.invoke(call('x/flaky')));
    expect(invoker.breakerState('x/flaky', '1.0.0', 't1')?.state).toBe('OPEN');

    await sleep(60);
    const results = await Promise.all(Array.from({ length: 6 }, () => codeOf(invoker.invoke(call('x/flaky')))));
    expect(inner.callsOf('x/flaky')).toBe(3);
    expect(results.filter((r) => r === ErrorCode.TOOL_FAILED)).toHaveLength(1);
    expect(results.filter((r) => r === ErrorCode.CIRCUIT_OPEN)).toHaveLength(5);
    expect(invoker.breakerState('x/flaky', '1.0.0', 't1')?.state).toBe('OPEN');

    healthy = true;
    await sleep(60);
    const recovered = await Promise.all(Array.from({ length: 6 }, () => codeOf(invoker.invoke(call('x/flaky')))));
    expect(recovered).toEqual(Array(6).fill('OK'));
    expect(inner.callsOf('x/flaky')).toBe(3 + 6);
    expect(invoker.breakerState('x/flaky', '1.0.0', 't1')?.state).toBe('CLOSED');
  });

  it('under an outage, upstream attempts stay within requests x (1 + retries), each attempt reported once', async () => {
    const inner = new ScriptedInvoker({ 'x/outage': failWith(ErrorCode.UNAVAILABLE) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/outage': { retries: 2, maxConcurrency: 50 } }), options({ consecutiveFailures: 1000 }));
    const reports: AttemptReport[] = [];
    const requests = 40;
    const results = await Promise.all(Array.from({ length: requests }, () => codeOf(invoker.invoke(call('x/outage', { onAttempt: (r) => void reports.push(r) })))));
    expect(results).toEqual(Array(requests).fill(ErrorCode.UNAVAILABLE));
    expect(inner.callsOf('x/outage')).toBe(requests * 3);
    expect(reports).toHaveLength(inner.callsOf('x/outage'));
    expect(reports.map((r) => r.attempt).sort()).toEqual([...Array(requests).fill(1), ...Array(requests).fill(2), ...Array(requests).fill(3)].sort());
    console.log(JSON.stringify({ figure: 'outage attempts', requests, retries: 2, upstreamAttempts: inner.callsOf('x/outage'), bound: requests * 3 }));
  });

  it('with the breaker on, an outage stops reaching the tool once the circuit opens', async () => {
    const inner = new ScriptedInvoker({ 'x/outage2': failWith(ErrorCode.UNAVAILABLE) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/outage2': { retries: 2 } }), options({ consecutiveFailures: 5 }));
    const requests = 40;
    for (let i = 0; i < requests; i++) await codeOf(invoker.invoke(call('x/outage2')));
    expect(inner.callsOf('x/outage2')).toBe(5);
    console.log(JSON.stringify({ figure: 'outage attempts with breaker (5 consecutive)', requests, retries: 2, upstreamAttempts: inner.callsOf('x/outage2'), bound: requests * 3 }));
  });

  it('does not retry a non-idempotent tool after a timeout or an ambiguous failure, but does when the call provably never started', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const inner = new ScriptedInvoker({
      'x/charge': hang,
      'x/reset': async () => {
        throw new ToolgateError(ErrorCode.TOOL_FAILED, 'upstream reset', [], { cause: reset });
      },
      'x/refused': async () => {
        throw new ToolgateError(ErrorCode.TOOL_FAILED, 'upstream refused', [], { cause: refused });
      },
      'x/idem': hang,
    });
    const limits = { retries: 3, idempotent: false, timeoutMs: 20 };
    const invoker = new ResilientToolInvoker(
      inner,
      catalog({ 'x/charge': limits, 'x/reset': limits, 'x/refused': limits, 'x/idem': { ...limits, idempotent: true } }),
      options({ consecutiveFailures: 1000 }),
    );
    await expect(codeOf(invoker.invoke(call('x/charge')))).resolves.toBe(ErrorCode.TIMEOUT);
    await expect(codeOf(invoker.invoke(call('x/reset')))).resolves.toBe(ErrorCode.TOOL_FAILED);
    await expect(codeOf(invoker.invoke(call('x/refused')))).resolves.toBe(ErrorCode.TOOL_FAILED);
    await expect(codeOf(invoker.invoke(call('x/idem')))).resolves.toBe(ErrorCode.TIMEOUT);
    expect(inner.callsOf('x/charge')).toBe(1);
    expect(inner.callsOf('x/reset')).toBe(1);
    expect(inner.callsOf('x/refused')).toBe(4);
    expect(inner.callsOf('x/idem')).toBe(4);
    // Retries keep the idempotency key and raise the attempt number.
    expect(inner.calls.filter((c) => c.toolId === 'x/refused').map((c) => [c.attempt, c.idempotencyKey])).toEqual(
      [1, 2, 3, 4].map((a) => [a, inner.calls.find((c) => c.toolId === 'x/refused')?.idempotencyKey]),
    );
  });

  it.each([ErrorCode.INVALID_ARGUMENTS, ErrorCode.FORBIDDEN, ErrorCode.OUTPUT_TOO_LARGE, ErrorCode.TOOL_FAILED])(
    'never retries %s (not transient) and does not count caller errors against the breaker',
    async (code) => {
      const inner = new ScriptedInvoker({ 'x/no': failWith(code) });
      const invoker = new ResilientToolInvoker(inner, catalog({ 'x/no': { retries: 3 } }), options({ consecutiveFailures: 1000 }));
      await expect(codeOf(invoker.invoke(call('x/no')))).resolves.toBe(code);
      expect(inner.callsOf('x/no')).toBe(1);
      expect(invoker.breakerState('x/no', '1.0.0', 't1')?.failures).toBe(code === ErrorCode.TOOL_FAILED ? 1 : 0);
    },
  );

  it('retries a TOOL_FAILED the tool marked transient', async () => {
    const inner = new ScriptedInvoker({ 'x/transient': failWith(ErrorCode.TOOL_FAILED, { transient: true }) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/transient': { retries: 2 } }), options());
    await codeOf(invoker.invoke(call('x/transient')));
    expect(inner.callsOf('x/transient')).toBe(3);
  });

  it('rejects the excess over maxConcurrency at once with OVERLOADED while another tool is unaffected', async () => {
    const release: (() => void)[] = [];
    const inner = new ScriptedInvoker({
      'x/busy': () => new Promise((resolve) => release.push(() => resolve('done'))),
      'x/other': succeed,
    });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/busy': { maxConcurrency: 2, timeoutMs: 5000 }, 'x/other': {} }), options());
    const rejected = { tool: 'x/busy', version: '1.0.0', tenant: 't1', reason: 'bulkhead' };
    const rejectedBefore = await metricValue(concurrencyRejections, rejected);
    const running = [invoker.invoke(call('x/busy')), invoker.invoke(call('x/busy'))];
    const excess = await Promise.all(Array.from({ length: 5 }, () => codeOf(invoker.invoke(call('x/busy')))));
    // The excess is settled while both slots are still held: rejected at once, not queued.
    expect(excess).toEqual(Array(5).fill(ErrorCode.OVERLOADED));
    expect((await metricValue(concurrencyRejections, rejected)) - rejectedBefore).toBe(5);
    expect(inner.callsOf('x/busy')).toBe(2);
    expect(invoker.breakerState('x/busy', '1.0.0', 't1')).toMatchObject({ inFlight: 2, maxConcurrency: 2, failures: 0, state: 'CLOSED' });
    await expect(Promise.all(Array.from({ length: 8 }, () => invoker.invoke(call('x/other'))))).resolves.toHaveLength(8);
    for (const r of release) r();
    await expect(Promise.all(running)).resolves.toEqual(['done', 'done']);
  });

  it('stops retrying when the caller aborts during the backoff, with CANCELLED', async () => {
    const inner = new ScriptedInvoker({ 'x/slowretry': failWith(ErrorCode.UNAVAILABLE) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/slowretry': { retries: 5 } }), { ...options(), retry: { baseDelayMs: 10_000, maxDelayMs: 10_000 } });
    const controller = new AbortController();
    const result = codeOf(invoker.invoke(call('x/slowretry', { signal: controller.signal })));
    await sleep(20);
    controller.abort();
    await expect(result).resolves.toBe(ErrorCode.CANCELLED);
    expect(inner.callsOf('x/slowretry')).toBe(1);
  });

  it('drains on shutdown: finished calls complete, the rest are cancelled after the timeout, new calls are refused', async () => {
    const inner = new ScriptedInvoker({ 'x/quick': async () => sleep(10, 'quick'), 'x/stuck': hang });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/quick': {}, 'x/stuck': { timeoutMs: 60_000 } }), options());
    const quick = invoker.invoke(call('x/quick'));
    const stuck = codeOf(invoker.invoke(call('x/stuck')));
    const report = await invoker.drain(100);
    expect(report).toEqual({ drained: 1, cancelled: 1 });
    await expect(quick).resolves.toBe('quick');
    await expect(stuck).resolves.toBe(ErrorCode.CANCELLED);
    expect(inner.calls.find((c) => c.toolId === 'x/stuck')?.signal.aborted).toBe(true);
    await expect(codeOf(invoker.invoke(call('x/quick')))).resolves.toBe(ErrorCode.UNAVAILABLE);
  });

  it('lists every called version in tenantStates()', async () => {
    const inner = new ScriptedInvoker({ 'x/a': succeed, 'x/b': succeed });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/a': {}, 'x/b': {} }), options());
    await invoker.invoke(call('x/a'));
    await invoker.invoke(call('x/b'));
    expect(invoker.tenantStates('t1').map((s) => [s.toolId, s.state, s.mode])).toEqual([
      ['x/a', 'CLOSED', 'consecutive'],
      ['x/b', 'CLOSED', 'consecutive'],
    ]);
    await expect(codeOf(invoker.invoke(call('x/missing')))).resolves.toBe(ErrorCode.TOOL_NOT_FOUND);
  });
});

describe('ResilientToolInvoker between tenants', () => {
  const as = (tenant: string, toolId: string, args: Record<string, unknown> = {}) => call(toolId, { principal: { tenant, subject: `${tenant}-user` }, arguments: args });

  it("opens only the caller's tenant's breaker when its own input times out: another tenant's call still runs and sees none of its failures", async () => {
    // An expensive expression only this caller sends: its calls hang until the timeout, everyone else's answer at once.
    const inner = new ScriptedInvoker({ 'x/calc': (inv) => (inv.arguments.heavy ? hang(inv) : succeed(inv)) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/calc': { timeoutMs: 20 } }, 2), options({ consecutiveFailures: 3 }));
    for (let i = 0; i < 3; i++) await expect(codeOf(invoker.invoke(as('acme', 'x/calc', { heavy: true })))).resolves.toBe(ErrorCode.TIMEOUT);
    await expect(codeOf(invoker.invoke(as('acme', 'x/calc')))).resolves.toBe(ErrorCode.CIRCUIT_OPEN);
    await expect(codeOf(invoker.invoke(as('globex', 'x/calc')))).resolves.toBe('OK');
    expect(invoker.breakerState('x/calc', '1.0.0', 'acme')).toMatchObject({ state: 'OPEN', shared: 'CLOSED', failures: 3, lastFailure: { code: ErrorCode.TIMEOUT } });
    expect(invoker.breakerState('x/calc', '1.0.0', 'globex')).toMatchObject({ state: 'CLOSED', shared: 'CLOSED', failures: 0, lastFailure: null });
    expect(invoker.states()).toEqual([{ toolId: 'x/calc', version: '1.0.0', state: 'CLOSED', openTenants: 1, failures: 3, inFlight: 0, maxConcurrency: 8 }]);
  });

  it("opens the shared breaker only when several tenants' own breakers open, refuses a third tenant without calling the tool, and lifts once a failing tenant's probe passes", async () => {
    let healthy = false;
    const inner = new ScriptedInvoker({ 'x/down': async () => (healthy ? { ok: true } : failWith(ErrorCode.TOOL_FAILED)(call('x'))) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/down': {} }, 3), options({ consecutiveFailures: 3, halfOpenAfterMs: 40 }));
    for (let i = 0; i < 3; i++) await codeOf(invoker.invoke(as('acme', 'x/down')));
    // One tenant alone: the third tenant's call still reaches the tool.
    await expect(codeOf(invoker.invoke(as('initech', 'x/down')))).resolves.toBe(ErrorCode.TOOL_FAILED);
    expect(inner.callsOf('x/down')).toBe(4);
    for (let i = 0; i < 3; i++) await codeOf(invoker.invoke(as('globex', 'x/down')));
    expect(invoker.states()[0]).toMatchObject({ state: 'OPEN', openTenants: 2 });
    const shared = { tool: 'x/down', version: '1.0.0', tenant: '*' };
    expect(await metricValue(breakerState, shared)).toBe(2);

    const refused = (await invoker.invoke(as('initech', 'x/down')).catch((e: unknown) => e)) as ToolgateError;
    expect(refused).toMatchObject({ code: ErrorCode.CIRCUIT_OPEN });
    // The refusal names no other tenant's failure.
    expect(refused.message).not.toContain('injected');
    expect(inner.callsOf('x/down')).toBe(7);
    expect(invoker.breakerState('x/down', '1.0.0', 'initech')).toMatchObject({ state: 'OPEN', shared: 'OPEN', lastFailure: { code: ErrorCode.TOOL_FAILED } });

    healthy = true;
    await sleep(60);
    await expect(codeOf(invoker.invoke(as('acme', 'x/down')))).resolves.toBe('OK');
    expect(invoker.states()[0]).toMatchObject({ state: 'CLOSED', openTenants: 1 });
    expect(await metricValue(breakerState, shared)).toBe(0);
    expect(await metricValue(breakerState, { ...shared, tenant: 'acme' })).toBe(0);
    expect(await metricValue(breakerState, { ...shared, tenant: 'globex' })).toBe(2);
    await expect(codeOf(invoker.invoke(as('initech', 'x/down')))).resolves.toBe('OK');
  });

  it('does not count a tenant whose breaker opened longer ago than the window towards the shared breaker', async () => {
    const inner = new ScriptedInvoker({ 'x/old': failWith(ErrorCode.UNAVAILABLE) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/old': {} }, 3), options({ consecutiveFailures: 2, windowMs: 30 }));
    for (let i = 0; i < 2; i++) await codeOf(invoker.invoke(as('acme', 'x/old')));
    await sleep(50);
    for (let i = 0; i < 2; i++) await codeOf(invoker.invoke(as('globex', 'x/old')));
    expect(invoker.states()[0]).toMatchObject({ state: 'CLOSED', openTenants: 2 });
    await expect(codeOf(invoker.invoke(as('initech', 'x/old')))).resolves.toBe(ErrorCode.UNAVAILABLE);
  });

  it("holds one tenant to its fair share of a version's concurrency: its excess waits for the tenant's own slots (OVERLOADED past its queue) while another tenant's call gets a slot at once", async () => {
    const release: (() => void)[] = [];
    const inner = new ScriptedInvoker({ 'x/slow': () => new Promise((resolve) => release.push(() => resolve('done'))) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/slow': { maxConcurrency: 5, timeoutMs: 5000 } }, 2), { ...options(), tenantQueue: 2 });
    const flood = Array.from({ length: 8 }, () => codeOf(invoker.invoke(as('acme', 'x/slow'))));
    // ceil(5 × 0.5) = 3 run, two wait in acme's queue, the other three are refused.
    await sleep(5);
    expect(inner.callsOf('x/slow')).toBe(3);
    expect(invoker.breakerState('x/slow', '1.0.0', 'acme')).toMatchObject({ inFlight: 3, tenantLimit: 3, maxConcurrency: 5, failures: 0 });
    const globex = [invoker.invoke(as('globex', 'x/slow')), invoker.invoke(as('globex', 'x/slow'))];
    await sleep(5);
    expect(inner.callsOf('x/slow')).toBe(5);
    // Each finished acme call hands its slot to acme's next waiting call.
    for (let round = 0; round < 3; round++) {
      for (const r of release.splice(0)) r();
      await sleep(5);
    }
    expect(inner.callsOf('x/slow')).toBe(7);
    await expect(Promise.all(globex)).resolves.toEqual(['done', 'done']);
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(5);
    expect(outcomes.filter((o) => o === ErrorCode.OVERLOADED)).toHaveLength(3);
  });

  it('lets the only tenant of a single-tenant server use the whole bulkhead', async () => {
    const release: (() => void)[] = [];
    const inner = new ScriptedInvoker({ 'x/solo': () => new Promise((resolve) => release.push(() => resolve('done'))) });
    const invoker = new ResilientToolInvoker(inner, catalog({ 'x/solo': { maxConcurrency: 4, timeoutMs: 5000 } }, 1), options());
    const calls = Array.from({ length: 4 }, () => invoker.invoke(as('local', 'x/solo')));
    await sleep(5);
    expect(inner.callsOf('x/solo')).toBe(4);
    for (const r of release) r();
    await expect(Promise.all(calls)).resolves.toEqual(Array(4).fill('done'));
  });
});

describe('AdaptiveBreaker', () => {
  it('judges a quiet tool by consecutive failures and a busy one by its failure ratio', () => {
    const quiet = new AdaptiveBreaker({ consecutiveFailures: 3, busyRps: 50, failureRatio: 0.5, windowMs: 1000 });
    expect([quiet.failure(0), quiet.failure(0), quiet.failure(0)]).toEqual([false, false, true]);
    expect(quiet.mode).toBe('consecutive');

    const busy = new AdaptiveBreaker({ consecutiveFailures: 3, busyRps: 50, failureRatio: 0.5, windowMs: 1000 });
    for (let i = 0; i < 100; i++) busy.success(0);
    expect(busy.mode).toBe('sampling');
    // Three failures in a row would open a quiet tool; at 3 in 103 a busy one stays closed.
    expect([busy.failure(0), busy.failure(0), busy.failure(0)]).toEqual([false, false, false]);
    let opened = false;
    for (let i = 0; i < 200 && !opened; i++) opened = busy.failure(0);
    expect(opened).toBe(true);
  });
});
