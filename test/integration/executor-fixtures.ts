import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Test } from '@nestjs/testing';
import {
  DEFAULT_ISOLATION_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type ExecutionRoute,
  ExecutionRoutes,
  ExecutorModule,
  type Invocation,
  IsolatedToolInvoker,
  PlanRunner,
  PlanValidator,
  type PreparedCall,
  type ResilienceOptions,
  ResilientToolInvoker,
  type ResumePoint,
  RoutingToolInvoker,
  RunEventBus,
  RunStore,
  remoteExecutionRoute,
  SchemaCache,
  serverExecutionRoute,
  ToolInvoker,
  TypeormRunStore,
} from '@toolgate/executor';
import type { Plan, PlanStep } from '@toolgate/planner';
import { AccessPolicyService, CatalogService, type Principal, RegistryModule, type RemoteWorkersOptions, RunAuditService, ToolVersionState } from '@toolgate/registry';
import { type Run, type RunEvent } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import { type DatabaseKind, testDatabase } from '../support/databases';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';

/**
 * `@fixtures/probe`: small real tools (loaded by the registry like any plugin) that record what reached
 * them in a module-level `probe` object the tests read through Node's own module cache.
 */
const PROBE_SOURCE = `
const probe = { active: 0, peak: 0, calls: [], aborted: [], wiped: [], received: [] };
exports.probe = probe;
const sleep = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true }); });
const base = (name, extra) => ({
  name,
  title: 'Probe ' + name,
  description: 'Test probe ' + name + ': records what reaches it. Use only in executor tests; not for real work.',
  category: ['testing'],
  tags: ['probe'],
  examples: [],
  inputSchema: { type: 'object', properties: { label: { type: 'string' } }, additionalProperties: false },
  outputSchema: { type: 'object', properties: { label: { type: 'string' } } },
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 5000, maxConcurrency: 16, retries: 0, idempotent: true },
  execution: 'server',
  ...extra,
});
const record = (name, args, ctx) => probe.calls.push({ tool: name, args, callId: ctx.callId, idempotencyKey: ctx.idempotencyKey, principal: ctx.principal });
exports.tools = [
  base('hold', {
    description: 'Waits until "expect" probes run at once (or 1.5 s pass) and reports the most that ever overlapped.',
    inputSchema: { type: 'object', properties: { label: { type: 'string' }, expect: { type: 'integer', minimum: 1 } }, required: ['label'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { label: { type: 'string' }, peak: { type: 'integer' } }, required: ['label', 'peak'] },
    async run(args, ctx) {
      record('hold', args, ctx);
      probe.active++;
      probe.peak = Math.max(probe.peak, probe.active);
      const until = Date.now() + 1500;
      while (probe.active < (args.expect || 1) && Date.now() < until && !ctx.signal.aborted) await sleep(5, ctx.signal);
      await sleep(20, ctx.signal);
      probe.active--;
      return { label: args.label, peak: probe.peak };
    },
  }),
  base('wait', {
    description: 'Waits until its signal aborts, then records that it saw the abort and throws.',
    async run(args, ctx) {
      record('wait', args, ctx);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      probe.aborted.push(ctx.callId);
      throw new Error('aborted');
    },
  }),
  base('echo', {
    description: 'Returns its label and a list of items; the text can be anything the test wants a tool to say.',
    inputSchema: { type: 'object', properties: { label: { type: 'string' }, text: { type: 'string' } }, required: ['label'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { label: { type: 'string' }, text: { type: 'string' }, items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } } }, required: ['label'] },
    run(args, ctx) {
      record('echo', args, ctx);
      return { label: args.label, text: args.text || '', items: [{ n: 1 }, { n: 2 }] };
    },
  }),
  base('fail', {
    description: 'Always throws; its manifest names probe/backup as the fallback.',
    fallback: 'probe/backup',
    run(args, ctx) {
      record('fail', args, ctx);
      throw new Error('upstream exploded');
    },
  }),
  base('backup', {
    description: 'Stands in for probe/fail and returns a label saying so.',
    run(args, ctx) {
      record('backup', args, ctx);
      return { label: 'backup:' + (args.label || '') };
    },
  }),
  base('guarded', {
    description: 'Always throws; its fallback probe/privileged needs the write risk grant.',
    fallback: 'probe/privileged',
    run(args, ctx) {
      record('guarded', args, ctx);
      throw new Error('guarded failed');
    },
  }),
  base('privileged', {
    description: 'A write-risk stand-in that only callers with write grants may execute.',
    permissions: { scopes: [], risk: 'write' },
    run(args, ctx) {
      record('privileged', args, ctx);
      return { label: 'privileged' };
    },
  }),
  base('bad-output', {
    description: 'Returns an output that breaks its own output schema (count is not an integer).',
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    run(args, ctx) {
      record('bad-output', args, ctx);
      return { count: 'many' };
    },
  }),
  base('wipe', {
    description: 'Destructive: deletes the named target (here it only records the name).',
    inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { wiped: { type: 'string' } }, required: ['wiped'] },
    permissions: { scopes: [], risk: 'destructive' },
    run(args, ctx) {
      record('wipe', args, ctx);
      probe.wiped.push(args.target);
      return { wiped: args.target };
    },
  }),
  base('send', {
    description: 'Write-risk tool that declares requiresApproval: a person confirms before it runs.',
    permissions: { scopes: [], risk: 'write', requiresApproval: true },
    run(args, ctx) {
      record('send', args, ctx);
      return { label: 'sent:' + (args.label || '') };
    },
  }),
  base('write-op', {
    description: 'A write-risk operation without approval, for the permission matrix.',
    permissions: { scopes: [], risk: 'write' },
    run(args, ctx) {
      record('write-op', args, ctx);
      return { label: 'written' };
    },
  }),
  base('strict', {
    description: 'Takes strictly typed arguments and records every argument object it receives.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 20 },
        amount: { type: 'number', minimum: 0, maximum: 1000 },
        mode: { enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        when: { type: 'string', format: 'date' },
        nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'], additionalProperties: false },
      },
      required: ['name', 'amount'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    run(args, ctx) {
      probe.received.push(args);
      return { ok: true };
    },
  }),
];
`;

export interface ProbeState {
  active: number;
  peak: number;
  calls: { tool: string; args: Record<string, unknown>; callId: string; idempotencyKey: string; principal: { tenant: string; subject: string } }[];
  aborted: string[];
  wiped: string[];
  received: Record<string, unknown>[];
}

/**
 * The real audit (TypeormRunStore on the harness's SQLite), with every event it recorded also kept in
 * order for assertions, the runs it let go, and a way to make recording fail.
 */
export class RecordingRunStore extends TypeormRunStore {
  readonly all: RunEvent[] = [];
  /** Runs given up by this process (a run paused for approval is held by nobody). */
  readonly released: string[] = [];
  failWith: Error | null = null;

  override async record(event: RunEvent, resume?: ResumePoint): Promise<void> {
    if (this.failWith) throw this.failWith;
    await super.record(event, resume);
    this.all.push(event);
  }

  override async release(runIds: string[]): Promise<void> {
    this.released.push(...runIds);
    await super.release(runIds);
  }
}

export const ROLES = {
  // Everything on probe/* up to write; destructive tools stay out of reach.
  worker: { grants: [{ tools: 'probe/*', actions: ['discover', 'execute'], maxRisk: 'write' }] },
  // Sees and runs probe/* at read risk only.
  reader: { grants: [{ tools: 'probe/*', actions: ['discover', 'execute'], maxRisk: 'read' }] },
  // Sees probe/* but may execute nothing.
  viewer: { grants: [{ tools: 'probe/*', actions: ['discover'], maxRisk: 'destructive' }] },
  // Sees every probe, executes only read-risk ones.
  limited: {
    grants: [
      { tools: 'probe/*', actions: ['discover'], maxRisk: 'destructive' },
      { tools: 'probe/*', actions: ['execute'], maxRisk: 'read' },
    ],
  },
  operator: { admin: true, grants: [{ tools: '**', actions: ['discover', 'execute'], maxRisk: 'destructive' }] },
  approver: { grants: [{ tools: 'probe/*', actions: ['discover', 'execute'], maxRisk: 'destructive' }] },
} as const;

export const principal = (subject: string, roles: string[], tenant = 'acme'): Principal => ({ tenant, subject, roles });

export function writePolicy(path: string, roles: Record<string, unknown>): void {
  // One key so the registry is not in local single-user mode (where everyone is admin).
  writeFileSync(path, JSON.stringify({ roles, apiKeys: [{ keySha256: 'a'.repeat(64), tenant: 'acme', subject: 'nobody', roles: [Object.keys(roles)[0]] }] }));
}

let planCounter = 0;
export const step = (id: string, tool: string, args: Record<string, unknown> = {}, dependsOn: string[] = []): PlanStep => ({ id, tool, arguments: args, dependsOn, reason: `test step ${id}` });
export const plan = (...steps: PlanStep[]): Plan => ({ id: `plan-${++planCounter}`, decision: 'USE_TOOLS', steps });

export interface ExecutorHarness {
  runner: PlanRunner;
  validator: PlanValidator;
  schemas: SchemaCache;
  access: AccessPolicyService;
  catalog: CatalogService;
  recorder: RecordingRunStore;
  probe: ProbeState;
  policyFile: string;
  close: () => Promise<void>;
  resetProbe: () => void;
}

/** The registry on a temporary SQLite file with the probe plugin, and the executor calling the in-process invoker directly (no resilience layer). */
export async function startExecutor(options: { maxParallel?: number; deadlineMs?: number; maxReplans?: number } = {}): Promise<ExecutorHarness> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-exec-'));
  const pluginDir = join(work, 'plugins');
  const dir = writePlugin(pluginDir, { folder: 'probe', packageJson: pluginPackage('@fixtures/probe', '1.0.0'), entry: PROBE_SOURCE });
  const policyFile = join(work, 'policy.json');
  writePolicy(policyFile, ROLES);
  const moduleRef = await Test.createTestingModule({
    imports: [
      RegistryModule.forRoot({ database: { type: 'sqlite', path: join(work, 'toolgate.db') }, pluginDirs: [pluginDir], policyFile, newVersionState: ToolVersionState.ACTIVE, isGlobal: true }),
      ExecutorModule.forRoot({ maxParallel: options.maxParallel ?? 4, deadlineMs: options.deadlineMs ?? 10_000, maxSteps: 20, maxReplans: options.maxReplans ?? 2, isolation: 'none' }),
    ],
  })
    .overrideProvider(RunStore)
    .useFactory({ factory: (audit: RunAuditService, bus: RunEventBus) => new RecordingRunStore(audit, bus), inject: [RunAuditService, RunEventBus] })
    .overrideProvider(ToolInvoker)
    .useFactory({ factory: (routes: ExecutionRoutes) => new RoutingToolInvoker(routes), inject: [ExecutionRoutes] })
    .compile();
  const app = await moduleRef.init();
  const recorder = app.get(RunStore) as RecordingRunStore;
  const entry = join(dir, 'index.js');
  const probe = (createRequire(entry)(entry) as { probe: ProbeState }).probe;
  return {
    runner: app.get(PlanRunner),
    validator: app.get(PlanValidator),
    schemas: app.get(SchemaCache),
    access: app.get(AccessPolicyService),
    catalog: app.get(CatalogService),
    recorder,
    probe,
    policyFile,
    close: () => app.close(),
    resetProbe: () => {
      Object.assign(probe, { active: 0, peak: 0 });
      for (const list of [probe.calls, probe.aborted, probe.wiped, probe.received]) list.length = 0;
    },
  };
}

/** Every step of a run got exactly one STEP_FINISHED, and the run one RUN_FINISHED. */
export function finishedOnce(events: RunEvent[], run: Run): boolean {
  const finished = events.filter((e): e is Extract<RunEvent, { type: 'STEP_FINISHED' }> => e.type === 'STEP_FINISHED').map((e) => e.step.id);
  return finished.length === run.steps.length && new Set(finished).size === run.steps.length && events.filter((e) => e.type === 'RUN_FINISHED').length === 1;
}

/** mulberry32: a tiny seeded PRNG, so a chaos run replays exactly from its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, to derive one call attempt's own random stream from (seed, idempotency key, attempt). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * `@fixtures/chaos`: `read` (idempotent, 2 retries, falls back to `backup`), `ledger` (not idempotent,
 * 2 retries: only failures that prove the call never started may be repeated) and `backup`. Every
 * `ledger` execution appends its idempotency key to a file (its side effect), which works the same in
 * this thread and in plugin worker threads. `nap` sleeps `ms` (honouring its signal) for shutdown tests.
 */
const chaosSource = (effectsLog: string) => String.raw`
const { appendFileSync } = require('node:fs');
const io = {
  inputSchema: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' }, ms: { type: 'integer', minimum: 0 } }, required: ['key'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } }, required: ['key', 'value'] },
};
const base = (name, extra) => ({
  name,
  title: 'Chaos ' + name,
  description: 'Chaos soak fixture ' + name + '. Use only in executor reliability tests; not for real work.',
  category: ['testing'],
  tags: ['chaos'],
  examples: [],
  ...io,
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 128, retries: 2, idempotent: true },
  execution: 'server',
  ...extra,
});
exports.tools = [
  base('read', { fallback: 'chaos/backup', run: (args) => ({ key: args.key, value: (args.value || '') + 'r' }) }),
  base('ledger', {
    // Its side effect is a file: a worker without fs:write may not write anywhere.
    permissions: { scopes: ['fs:write'], risk: 'write' },
    limits: { timeoutMs: 1000, maxConcurrency: 128, retries: 2, idempotent: false },
    run(args, ctx) {
      appendFileSync(${JSON.stringify(effectsLog)}, ctx.idempotencyKey + '\n');
      return { key: args.key, value: (args.value || '') + 'l' };
    },
  }),
  base('backup', { limits: { timeoutMs: 1000, maxConcurrency: 128, retries: 0, idempotent: true }, run: (args) => ({ key: args.key, value: 'backup' }) }),
  base('nap', {
    limits: { timeoutMs: 10000, maxConcurrency: 16, retries: 0, idempotent: false },
    run: (args, ctx) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ key: args.key, value: 'rested' }), args.ms || 0);
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('nap interrupted')); }, { once: true });
      }),
  }),
];
`;

export const CHAOS_ROLES = { chaos: { grants: [{ tools: 'chaos/*', actions: ['discover', 'execute'], maxRisk: 'write' }] } } as const;

export type ChaosFault = 'transient' | 'refused' | 'timeout' | 'invalid-output';
const CHAOS_FAULTS: readonly ChaosFault[] = ['transient', 'refused', 'timeout', 'invalid-output'];

export interface ChaosSettings {
  seed: number;
  /** Share of calls whose first attempt gets a fault. */
  faultRate: number;
  /** Chance that a faulted attempt's retry is faulted again (so some calls exhaust their retries). */
  repeatRate: number;
}

export interface InjectedFault {
  key: string;
  tool: string;
  attempt: number;
  fault: ChaosFault;
}

/**
 * Fault and latency injection between the resilient invoker and the one that runs the tool. What an
 * attempt suffers is a function of (seed, idempotency key, attempt) only, so a run replays the same
 * whatever the scheduling, and a test can predict every outcome from the seed:
 * - `refused`: ECONNREFUSED before the tool runs (proves it never started: retried even when not idempotent);
 * - `transient`: the tool ran, then a failure marked transient (retried only when idempotent);
 * - `timeout`: the tool ran, then the answer never comes (the attempt's timeout fires);
 * - `invalid-output`: the tool ran and its answer breaks the output schema.
 * Latency: 0–2 ms for most attempts, 2–5 ms for one in ten, 10–30 ms for one in two hundred.
 */
export class ChaosToolInvoker extends ToolInvoker {
  readonly injected: InjectedFault[] = [];
  /** Attempts that reached this layer. */
  attempts = 0;
  latencyMs = 0;

  constructor(
    private readonly inner: ToolInvoker,
    private readonly settings: ChaosSettings,
  ) {
    super();
  }

  /** The fault planned for attempt `attempt` of the call with this idempotency key, or null. */
  faultFor(key: string, attempt: number): ChaosFault | null {
    for (let n = 1; n <= attempt; n++) {
      if (this.stream(key, n)() >= (n === 1 ? this.settings.faultRate : this.settings.repeatRate)) return null;
    }
    return CHAOS_FAULTS[Math.floor(this.stream(key, 0)() * CHAOS_FAULTS.length)];
  }

  latencyFor(key: string, attempt: number): number {
    const next = this.stream(key, attempt);
    next();
    const bucket = next();
    const within = next();
    if (bucket < 0.005) return 10 + Math.floor(within * 21);
    if (bucket < 0.105) return 2 + Math.floor(within * 4);
    return Math.floor(within * 3);
  }

  /** Start-up of what runs the tool (a worker loading the plugin) is not part of the chaos: passed straight through. */
  override prepare(call: PreparedCall, signal: AbortSignal): Promise<void> {
    return this.inner.prepare(call, signal);
  }

  override release(call: PreparedCall): void {
    this.inner.release(call);
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    const key = invocation.idempotencyKey;
    const fault = this.faultFor(key, invocation.attempt);
    const delay = this.latencyFor(key, invocation.attempt);
    this.attempts++;
    this.latencyMs += delay;
    if (fault) this.injected.push({ key, tool: `${invocation.toolId}@${invocation.version}`, attempt: invocation.attempt, fault });
    if (delay > 0) await sleep(delay, undefined, { signal: invocation.signal });
    if (fault === 'refused') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9 (injected before the call)'), { code: 'ECONNREFUSED' });
    const output = await this.inner.invoke(invocation);
    if (fault === 'transient') throw Object.assign(new Error('upstream reset after the call (injected)'), { transient: true });
    if (fault === 'timeout') await untilAbort(invocation.signal);
    if (fault === 'invalid-output') return { key: 42 };
    return output;
  }

  private stream(key: string, attempt: number): () => number {
    return mulberry32(fnv1a(`${this.settings.seed}|${key}|${attempt}`));
  }
}

const untilAbort = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

export interface ChaosHarness {
  runner: PlanRunner;
  catalog: CatalogService;
  chaos: ChaosToolInvoker;
  resilient: ResilientToolInvoker;
  audit: RunAuditService;
  dataSource: DataSource;
  owner: Principal;
  /** The database the registry and the audit use (still there after `close` for SQLite, to read the audit back). */
  database: Awaited<ReturnType<typeof testDatabase>>['options'];
  /** Side effects of `chaos/ledger`: executions per idempotency key. */
  effects: () => Map<string, number>;
  close: () => Promise<void>;
}

export interface ChaosOptions extends ChaosSettings {
  database: DatabaseKind;
  /** `worker`: tools run in plugin worker threads (IsolatedToolInvoker); `none`: in this thread. */
  isolation: 'none' | 'worker';
  /**
   * The chaos plugin hosted by remote tool workers instead of this process: `startWorkers` gets the
   * plugin's folder and starts them (before the registry's first load, which waits for their
   * announcements); the registry joins them with `options`, and faults are injected over the remote route.
   */
  remote?: { options: RemoteWorkersOptions; startWorkers: (pluginDir: string) => Promise<void> };
  maxParallel?: number;
  drainTimeoutMs?: number;
}

/**
 * The production stack for chaos tests: registry on a real database with the chaos plugin, PlanRunner,
 * ResilientToolInvoker over ChaosToolInvoker over the in-process or isolated invoker, and the TypeORM
 * run store, wired the way the gateway wires them.
 */
export async function startChaosExecutor(options: ChaosOptions): Promise<ChaosHarness> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-chaos-'));
  const pluginDir = join(work, 'plugins');
  const effectsLog = join(work, 'effects.log');
  writeFileSync(effectsLog, '');
  writePlugin(pluginDir, { folder: 'chaos', packageJson: pluginPackage('@fixtures/chaos', '1.0.0'), entry: chaosSource(effectsLog) });
  const policyFile = join(work, 'policy.json');
  writePolicy(policyFile, CHAOS_ROLES);
  const localPlugins = options.remote ? join(work, 'no-plugins') : pluginDir;
  mkdirSync(localPlugins, { recursive: true });
  await options.remote?.startWorkers(pluginDir);
  const db = await testDatabase(options.database);
  const resilience: ResilienceOptions = {
    ...DEFAULT_RESILIENCE_OPTIONS,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    drainTimeoutMs: options.drainTimeoutMs ?? DEFAULT_RESILIENCE_OPTIONS.drainTimeoutMs,
  };
  const settings: ChaosSettings = { seed: options.seed, faultRate: options.faultRate, repeatRate: options.repeatRate };
  // The tools' route with faults injected between the resilience layer and the code that runs the tool.
  let server: ToolInvoker | undefined;
  let chaos: ChaosToolInvoker | undefined;
  const route = options.remote ? remoteExecutionRoute : serverExecutionRoute;
  const chaosRoute: ExecutionRoute = {
    kind: route.kind,
    create: (context) => {
      const handlers = route.create(context);
      server = handlers.invoker;
      chaos = new ChaosToolInvoker(handlers.invoker, settings);
      return { ...handlers, invoker: chaos };
    },
  };
  const moduleRef = await Test.createTestingModule({
    imports: [
      RegistryModule.forRoot({ database: db.options, pluginDirs: [localPlugins], policyFile, newVersionState: ToolVersionState.ACTIVE, remote: options.remote?.options ?? null, isGlobal: true }),
      ExecutorModule.forRoot({
        maxParallel: options.maxParallel ?? 4,
        deadlineMs: 60_000,
        maxSteps: 20,
        maxReplans: 0,
        isolation: options.isolation,
        worker: { ...DEFAULT_ISOLATION_OPTIONS, heapMb: 64, poolSize: 4, killGraceMs: 50, netHosts: [] },
        resilience,
        routes: [chaosRoute],
      }),
    ],
  }).compile();
  const app = await moduleRef.init();
  if (options.remote) {
    const catalog = app.get(CatalogService);
    const hosted = () => ['read', 'ledger', 'backup', 'nap'].every((name) => catalog.activeTools().some((tool) => tool.id === `chaos/${name}`));
    for (const until = Date.now() + 30_000; !hosted(); await sleep(50)) if (Date.now() > until) throw new Error('the remote workers did not announce the chaos tools within 30 s');
  }
  // A cold burst is not what the soak measures: the plugin's workers start and load before it.
  if (server instanceof IsolatedToolInvoker) {
    const isolated = server;
    await Promise.all(['read', 'ledger', 'backup', 'nap'].map((name) => isolated.warm(`chaos/${name}`, '1.0.0')));
  }
  return {
    runner: app.get(PlanRunner),
    catalog: app.get(CatalogService),
    chaos: chaos as ChaosToolInvoker,
    resilient: app.get(ResilientToolInvoker),
    audit: app.get(RunAuditService),
    dataSource: app.get(DataSource),
    owner: principal('chaos-monkey', ['chaos']),
    database: db.options,
    effects: () => {
      const counts = new Map<string, number>();
      for (const key of readFileSync(effectsLog, 'utf8').split('\n').filter(Boolean)) counts.set(key, (counts.get(key) ?? 0) + 1);
      return counts;
    },
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
