import { monitorEventLoopDelay } from 'node:perf_hooks';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Plan } from '@toolgate/planner';
import type { Run, StepStatus } from '@toolgate/sdk';
import type { DatabaseKind } from '../support/databases';
import { type RunningWorker, startWorker } from '../support/gateway-process';
import { type NatsServerHandle, startNats } from '../support/nats-server';
import { natsEnv, USERS } from '../support/remote-fixtures';
import { type ChaosFault, type ChaosHarness, type ChaosToolInvoker, mulberry32, startChaosExecutor, step } from './executor-fixtures';

/*
 * Seeded chaos soak through the production stack: PlanValidator + PlanRunner + ResilientToolInvoker over
 * fault injection over the in-process invoker, the TypeORM run recorder on a real database, and
 * OpenTelemetry spans captured in memory. In-process, because plugin workers would make 10,000 calls
 * take minutes; the worker path gets a smaller soak below.
 *
 * TOOLGATE_CHAOS_SEED replays a run; TOOLGATE_CHAOS_CALLS (default 10,000, a multiple of 5) and
 * TOOLGATE_CHAOS_CONCURRENCY (plans in flight, default 32) size it; TOOLGATE_CHAOS_WORKER_CALLS (default 500) sizes the worker soak
 * and TOOLGATE_CHAOS_REMOTE_CALLS (default 1,500) the one through remote tool workers over NATS.
 */
const SEED = Number(process.env.TOOLGATE_CHAOS_SEED ?? 20_260_306);
const CALLS = Number(process.env.TOOLGATE_CHAOS_CALLS ?? 10_000);
const WORKER_CALLS = Number(process.env.TOOLGATE_CHAOS_WORKER_CALLS ?? 500);
const REMOTE_CALLS = Number(process.env.TOOLGATE_CHAOS_REMOTE_CALLS ?? 1_500);
const CONCURRENCY = Number(process.env.TOOLGATE_CHAOS_CONCURRENCY ?? 32);
const FAULT_RATE = 0.02;
const REPEAT_RATE = 0.35;
const STEPS_PER_PLAN = 5;

const READ = 'chaos/read@1.0.0';
const LEDGER = 'chaos/ledger@1.0.0';
const BACKUP = 'chaos/backup@1.0.0';
/** The manifests' limits (see the chaos fixture plugin), for the oracle. */
const LIMITS: Record<string, { retries: number; idempotent: boolean; fallback?: string }> = {
  [READ]: { retries: 2, idempotent: true, fallback: BACKUP },
  [LEDGER]: { retries: 2, idempotent: false },
  [BACKUP]: { retries: 0, idempotent: true },
};

/** Dependency shapes of a five-step plan: chains, diamonds, fan-in and independent steps, so levels of 1 to 5 parallel steps occur. */
const SHAPES: string[][][] = [
  [[], ['s1'], ['s2'], ['s3'], ['s4']],
  [[], ['s1'], ['s1'], ['s2', 's3'], ['s4']],
  [[], [], [], [], ['s1', 's2', 's3', 's4']],
  [[], ['s1'], [], ['s3'], ['s2', 's4']],
  [[], [], [], [], []],
];

interface SoakPlan {
  runId: string;
  plan: Plan;
}

/** Seeded plans: each step calls read (70%) or ledger (30%); a step with dependencies binds its value to its first dependency's output. */
function soakPlans(seed: number, calls: number, prefix: string): SoakPlan[] {
  const random = mulberry32(seed);
  return Array.from({ length: calls / STEPS_PER_PLAN }, (_, i) => {
    const shape = SHAPES[Math.floor(random() * SHAPES.length)];
    const steps = shape.map((deps, n) =>
      step(`s${n + 1}`, random() < 0.7 ? 'chaos/read' : 'chaos/ledger', { key: `${prefix}-${i}/s${n + 1}`, value: deps.length > 0 ? { $ref: `steps.${deps[0]}.output/value` } : 'v' }, deps),
    );
    return { runId: `${prefix}-${i}`, plan: { id: `${prefix}-plan-${i}`, decision: 'USE_TOOLS', steps } as Plan };
  });
}

interface Expected {
  status: StepStatus;
  /** Attempts per tool version the step calls. */
  attempts: Record<string, number>;
}

/** What one call does under the planned faults: attempts made, and how it ends. */
function callUnderFaults(chaos: ChaosToolInvoker, key: string, tool: string): { ok: boolean; invalidOutput: boolean; attempts: number } {
  const { retries, idempotent } = LIMITS[tool];
  for (let n = 1; ; n++) {
    const fault = chaos.faultFor(key, n);
    if (!fault) return { ok: true, invalidOutput: false, attempts: n };
    if (fault === 'invalid-output') return { ok: false, invalidOutput: true, attempts: n };
    // A refused connection proves the call never started; anything else may have had its effect.
    const retried = fault === 'refused' || idempotent;
    if (!retried || n === 1 + retries) return { ok: false, invalidOutput: false, attempts: n };
  }
}

/**
 * The oracle: every step's final status and attempts, from the seed alone. Whether a step runs at all
 * depends on how its dependencies actually ended (`actual`), so a real fault upstream (a killed worker)
 * does not make every step below it a mismatch; the dependencies are checked in their own right.
 */
function expectedOutcomes(chaos: ChaosToolInvoker, plans: SoakPlan[], actual: (key: string) => string | undefined): Map<string, Expected> {
  const expected = new Map<string, Expected>();
  for (const { runId, plan } of plans) {
    for (const s of plan.steps) {
      const tool = `${s.tool}@1.0.0`;
      if (!s.dependsOn.every((d) => ['SUCCEEDED', 'FALLBACK'].includes(actual(`${runId}/${d}`) ?? ''))) {
        expected.set(`${runId}/${s.id}`, { status: 'SKIPPED', attempts: {} });
        continue;
      }
      const primary = callUnderFaults(chaos, `${runId}:${s.id}:${tool}`, tool);
      const fallback = LIMITS[tool].fallback;
      if (primary.ok || primary.invalidOutput || !fallback) {
        expected.set(`${runId}/${s.id}`, { status: primary.ok ? 'SUCCEEDED' : 'FAILED', attempts: { [tool]: primary.attempts } });
        continue;
      }
      const standIn = callUnderFaults(chaos, `${runId}:${s.id}:${fallback}`, fallback);
      expected.set(`${runId}/${s.id}`, { status: standIn.ok ? 'FALLBACK' : 'FAILED', attempts: { [tool]: primary.attempts, [fallback]: standIn.attempts } });
    }
  }
  return expected;
}

/** At most `limit` plans in flight; the next one starts as soon as one finishes. */
async function inFlight<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
function countBy<T>(items: T[], keyOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}
const FINAL: ReadonlySet<string> = new Set(['SUCCEEDED', 'FAILED', 'FALLBACK', 'SKIPPED', 'CANCELLED']);

/** A real fault done to the system while the soak runs, once `atShare` of its plans have finished. */
interface Disruption {
  atShare: number;
  label: string;
  run: () => Promise<void>;
}

/** Errors only real faults give (a worker gone, NATS down), never an injected one. */
const REAL_FAULT_MESSAGE = /worker|NATS/;
/** How each injected fault ends its attempt: an attempt that ended otherwise met a real fault first. */
const FAULT_ENDS: Record<ChaosFault, (error: { code: string; message: string }) => boolean> = {
  refused: (error) => error.message.includes('ECONNREFUSED'),
  transient: (error) => error.message.includes('(injected)'),
  timeout: (error) => error.code === 'TIMEOUT',
  'invalid-output': (error) => error.message.includes('does not match its outputSchema'),
};

/**
 * Runs the soak, prints its figures, and checks every invariant against the database, the spans and the
 * oracle. With disruptions, a step an unplanned failure touched (an attempt the seed gave no fault, or
 * one a real fault answered) is exempt from the oracle's exact outcome, never from the invariants.
 */
async function soak(
  h: ChaosHarness,
  exporter: InMemorySpanExporter,
  label: string,
  calls: number,
  prefix: string,
  disruptions: Disruption[] = [],
): Promise<{ timersBefore: number; timersAfter: number }> {
  const plans = soakPlans(SEED, calls, prefix);
  const returned = new Map<string, Run>();
  exporter.reset();
  const timersBefore = timers();
  // Event-loop stalls are what could turn a clean call into a timeout: reported with the figures.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const started = performance.now();
  const pendingDisruptions = [...disruptions].sort((a, b) => a.atShare - b.atShare);
  const disrupted: Promise<{ label: string; atMs: number; tookMs: number }>[] = [];
  let finishedPlans = 0;
  await inFlight(plans, CONCURRENCY, async ({ runId, plan }) => {
    returned.set(runId, await h.runner.execute(plan, h.owner, { runId }));
    finishedPlans++;
    while (pendingDisruptions.length > 0 && finishedPlans >= pendingDisruptions[0].atShare * plans.length) {
      const disruption = pendingDisruptions.shift() as Disruption;
      const atMs = performance.now() - started;
      disrupted.push(disruption.run().then(() => ({ label: disruption.label, atMs: Math.round(atMs), tookMs: Math.round(performance.now() - started - atMs) })));
    }
  });
  const wallMs = performance.now() - started;
  loopDelay.disable();
  const disruptionFigures = await Promise.all(disrupted);
  expect(disruptionFigures).toHaveLength(disruptions.length);

  const q = (sql: string) => h.dataSource.query(sql) as Promise<Record<string, unknown>[]>;
  const like = `LIKE '${prefix}-%'`;
  const stepRows = await q(`SELECT run_id, step_id, status, attempts, tool, started_at, error FROM run_steps WHERE run_id ${like}`);
  const attemptRows = await q(`SELECT run_id, step_id, tool, attempt, error FROM step_attempts WHERE run_id ${like}`);
  const eventRows = await q(`SELECT run_id, type, payload FROM run_events WHERE run_id ${like} AND type IN ('STEP_STARTED', 'STEP_FINISHED', 'RUN_FINISHED')`);
  const runRows = await q(`SELECT id, status FROM runs WHERE id ${like}`);
  const spans = exporter.getFinishedSpans().filter((s) => s.name === 'toolgate.step');
  const injected = h.chaos.injected.filter((f) => f.key.startsWith(`${prefix}-`));
  const effects = h.effects();
  const ledgerKeys = [...effects.keys()].filter((k) => k.startsWith(`${prefix}-`));
  const attemptsByStep = new Map<string, Record<string, number>>();
  for (const a of attemptRows) {
    const perTool = attemptsByStep.get(`${a.run_id}/${a.step_id}`) ?? {};
    perTool[String(a.tool)] = (perTool[String(a.tool)] ?? 0) + 1;
    attemptsByStep.set(`${a.run_id}/${a.step_id}`, perTool);
  }
  // Unplanned failures: an attempt that failed where the seed planned no fault, or that a real fault answered.
  const planned = new Map(injected.map((f) => [`${f.key}#${f.attempt}`, f.fault]));
  const errorOf = (json: unknown) => (json ? (JSON.parse(String(json)) as { code: string; message: string }) : null);
  const realFaults = attemptRows.flatMap((a) => {
    const error = errorOf(a.error);
    if (!error) return [];
    const fault = planned.get(`${a.run_id}:${a.step_id}:${a.tool}#${a.attempt}`);
    const unplanned = !fault || !FAULT_ENDS[fault](error) || REAL_FAULT_MESSAGE.test(error.message);
    return unplanned ? [{ key: `${a.run_id}/${a.step_id}`, code: error.code, message: error.message }] : [];
  });
  // A step can also end on an unplanned failure no attempt shows (a breaker opened by real faults refuses before the call).
  const unplannedEnds = stepRows.filter((r) => {
    const error = errorOf(r.error);
    return error !== null && (error.code === 'CIRCUIT_OPEN' || REAL_FAULT_MESSAGE.test(error.message));
  });
  const touched = new Set([...realFaults.map((f) => f.key), ...unplannedEnds.map((r) => `${r.run_id}/${r.step_id}`)]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const timersAfter = timers();
  const statuses = countBy(stepRows, (r) => String(r.status));
  const figures = {
    soak: label,
    seed: SEED,
    calls,
    plans: plans.length,
    plansInFlight: CONCURRENCY,
    callsStarted: spans.length,
    faultsInjected: injected.length,
    callsWithAFault: new Set(injected.map((f) => f.key)).size,
    faultsByKind: countBy(injected, (f) => f.fault),
    outcomes: statuses,
    runs: countBy(runRows, (r) => String(r.status)),
    attempts: attemptRows.length,
    retries: attemptRows.length - [...attemptsByStep.values()].reduce((sum, perTool) => sum + Object.keys(perTool).length, 0),
    fallbacks: statuses.FALLBACK ?? 0,
    ledgerSideEffects: ledgerKeys.length,
    injectedLatencyMs: h.chaos.latencyMs,
    disruptions: disruptionFigures,
    unplannedFailures: countBy(realFaults, (f) => f.code),
    unplannedFailureExamples: Object.fromEntries(realFaults.map((f) => [f.code, f.message.slice(0, 160)])),
    stepsTouchedByRealFaults: touched.size,
    breakers: h.resilient.states().map((s) => `${s.toolId}@${s.version} ${s.state} failures=${s.failures}`),
    eventLoopDelayMaxMs: Math.round(loopDelay.max / 1e6),
    timersBefore,
    timersAfter,
    wallMs: Math.round(wallMs),
    callsPerSecond: Math.round(calls / (wallMs / 1000)),
  };
  process.stdout.write(`chaos soak figures ${JSON.stringify(figures)}\n`);

  // Exactly one final outcome per submitted call: one row each, one STEP_FINISHED each, no duplicates.
  expect(stepRows).toHaveLength(calls);
  expect(stepRows.filter((r) => !FINAL.has(String(r.status)))).toEqual([]);
  const finished = eventRows.filter((e) => e.type === 'STEP_FINISHED').map((e) => `${e.run_id}/${(JSON.parse(String(e.payload)) as { step: { id: string } }).step.id}`);
  expect(finished).toHaveLength(calls);
  expect(new Set(finished).size).toBe(calls);
  expect(runRows).toHaveLength(plans.length);
  expect(eventRows.filter((e) => e.type === 'RUN_FINISHED')).toHaveLength(plans.length);
  expect(runRows.filter((r) => r.status !== returned.get(String(r.id))?.status)).toEqual([]);

  // Every started call has exactly one toolgate.step span; the calls that never started were skipped.
  const startedEvents = eventRows.filter((e) => e.type === 'STEP_STARTED').map((e) => `${e.run_id}/${(JSON.parse(String(e.payload)) as { stepId: string }).stepId}`);
  const spanKeys = spans.map((s) => `${s.attributes['toolgate.run.id']}/${s.attributes['toolgate.step.id']}`);
  expect(new Set(spanKeys).size).toBe(spans.length);
  expect([...spanKeys].sort()).toEqual([...startedEvents].sort());
  const neverStarted = stepRows.filter((r) => r.started_at === null);
  expect(neverStarted.filter((r) => r.status !== 'SKIPPED')).toEqual([]);
  expect(spans.length + neverStarted.length).toBe(calls);

  // Attempts are bounded (1 + retries per tool version) and, like every status, exactly what the seed predicts.
  const unbounded = [...attemptsByStep].flatMap(([key, perTool]) =>
    Object.entries(perTool)
      .filter(([tool, n]) => n > 1 + LIMITS[tool].retries)
      .map(([tool, n]) => ({ key, tool, n })),
  );
  expect(unbounded).toEqual([]);
  expect(stepRows.filter((r) => Number(r.attempts) !== Object.values(attemptsByStep.get(`${r.run_id}/${r.step_id}`) ?? {}).reduce((sum, n) => sum + n, 0))).toEqual([]);
  // Without disruptions nothing unplanned may fail; with them, the real faults really happened.
  if (disruptions.length === 0) expect([...touched]).toEqual([]);
  else expect(realFaults.length).toBeGreaterThan(0);
  const actualStatus = new Map(stepRows.map((r) => [`${r.run_id}/${r.step_id}`, String(r.status)]));
  const expected = expectedOutcomes(h.chaos, plans, (key) => actualStatus.get(key));
  const mismatches = stepRows.flatMap((r) => {
    const key = `${r.run_id}/${r.step_id}`;
    if (touched.has(key)) return [];
    const got = { status: r.status, attempts: attemptsByStep.get(key) ?? {} };
    const want = expected.get(key);
    const same = want && got.status === want.status && JSON.stringify(Object.entries(got.attempts).sort()) === JSON.stringify(Object.entries(want.attempts).sort());
    const errors = attemptRows.filter((a) => `${a.run_id}/${a.step_id}` === key).map((a) => a.error);
    return same ? [] : [{ key, got, want, errors }];
  });
  expect(mismatches.slice(0, 5)).toEqual([]);

  // No side effect of the non-idempotent tool ran twice; every ledger step that succeeded ran it exactly once.
  expect(ledgerKeys.filter((k) => (effects.get(k) ?? 0) > 1)).toEqual([]);
  const ledgerSucceeded = stepRows.filter((r) => r.status === 'SUCCEEDED' && r.tool === LEDGER);
  expect(ledgerSucceeded.filter((r) => effects.get(`${r.run_id}:${r.step_id}:${LEDGER}`) !== 1)).toEqual([]);

  // The faults really happened, of every kind.
  expect(Object.keys(countBy(injected, (f) => f.fault)).sort()).toEqual(['invalid-output', 'refused', 'timeout', 'transient']);
  return { timersBefore, timersAfter };
}

// One provider for the file: the runner's tracer keeps the delegate it first resolved.
const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => trace.disable());

describe.each<DatabaseKind>(['sqlite', 'postgres'])('seeded chaos soak on %s (in-process tools)', (database) => {
  let h: ChaosHarness;

  beforeAll(async () => {
    h = await startChaosExecutor({ database, isolation: 'none', seed: SEED, faultRate: FAULT_RATE, repeatRate: REPEAT_RATE });
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`${CALLS} calls with ${FAULT_RATE * 100}% faults and injected latency: one recorded outcome per call, audit rows = calls = step spans + skipped, bounded attempts, no side effect twice`, async () => {
    const { timersBefore, timersAfter } = await soak(h, exporter, `${database} in-process`, CALLS, 'chaos');
    // No leaked timers (PostgreSQL's pool keeps an idle timer per open client, so only SQLite is compared).
    if (database === 'sqlite') expect(timersAfter).toBeLessThanOrEqual(timersBefore);
  }, 600_000);
});

describe('seeded chaos soak through plugin workers (SQLite)', () => {
  let h: ChaosHarness;

  beforeAll(async () => {
    h = await startChaosExecutor({ database: 'sqlite', isolation: 'worker', seed: SEED, faultRate: FAULT_RATE, repeatRate: REPEAT_RATE });
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`${WORKER_CALLS} calls through the IsolatedToolInvoker keep the same guarantees`, async () => {
    await soak(h, exporter, 'sqlite worker', WORKER_CALLS, 'chaosw');
  }, 300_000);
});

/*
 * The same soak through remote tool workers: two `toolgate worker` processes host the chaos plugin on a
 * real nats-server with the deployment's credentials, faults are injected over the remote route, and
 * real faults are done during it: each worker SIGKILLed and started again, and NATS restarted after a
 * second down. One recorded outcome per call, bounded attempts and no side effect twice still hold.
 */
describe('seeded chaos soak through remote tool workers over NATS (PostgreSQL)', () => {
  let h: ChaosHarness;
  let nats: NatsServerHandle;
  let workerEnv: Record<string, string>;
  const workers = new Map<string, RunningWorker>();
  const launch = async (id: string) => {
    workers.set(id, await startWorker(id, workerEnv));
  };
  const kill = async (id: string) => {
    await workers.get(id)?.kill('SIGKILL');
    workers.delete(id);
  };

  beforeAll(async () => {
    nats = await startNats({ users: USERS });
    const gateway = natsEnv(nats.url, 'gateway');
    h = await startChaosExecutor({
      database: 'postgres',
      isolation: 'worker',
      seed: SEED,
      faultRate: FAULT_RATE,
      repeatRate: REPEAT_RATE,
      remote: {
        options: { servers: [nats.url], user: gateway.TOOLGATE_NATS_USER, password: gateway.TOOLGATE_NATS_PASSWORD, prefix: 'toolgate', discoveryMs: 1_500, missedHeartbeats: 3 },
        startWorkers: async (pluginDir) => {
          // Capacity above what the soak sends at once: OVERLOADED is the flood test's, not a fault here.
          workerEnv = { ...natsEnv(nats.url, 'worker'), TOOLGATE_PLUGIN_DIRS: pluginDir, TOOLGATE_PLUGIN_IMPORT_CACHE: 'off', TOOLGATE_WORKER_HEARTBEAT_MS: '200', TOOLGATE_WORKER_CAPACITY: '512' };
          await Promise.all([launch('w1'), launch('w2')]);
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([...workers.keys()].map(kill));
    await nats?.stop();
  });

  it(`${REMOTE_CALLS} calls while workers are killed and NATS restarts: one recorded outcome per call, bounded attempts, no side effect twice`, async () => {
    await soak(h, exporter, 'postgres remote', REMOTE_CALLS, 'chaosr', [
      { atShare: 0.15, label: 'SIGKILL worker w1', run: () => kill('w1') },
      { atShare: 0.3, label: 'start worker w1 again', run: () => launch('w1') },
      { atShare: 0.5, label: 'restart NATS (1 s down)', run: () => nats.restart(1_000) },
      { atShare: 0.7, label: 'SIGKILL worker w2', run: () => kill('w2') },
      { atShare: 0.85, label: 'start worker w2 again', run: () => launch('w2') },
    ]);
  }, 600_000);
});
