import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { ExecutorModule, PlanRunner, PlanValidator, type Run, type RunEvent, type RunFilter, RunRecorder, SchemaCache, ToolInvoker } from '@toolgate/executor';
import type { Plan, PlanStep } from '@toolgate/planner';
import { AccessPolicyService, CatalogService, type Principal, RegistryModule, ToolVersionState } from '@toolgate/registry';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';

/**
 * `@fixtures/probe`: small real tools (loaded by the registry like any plugin) that record what reached
 * them in a module-level `probe` object the tests read through Node's own module cache.
 */
const PROBE_SOURCE = String.raw`
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

/** Everything recorded, in memory: the audit trail the runner writes, for assertions. */
export class MemoryRunRecorder extends RunRecorder {
  readonly all: RunEvent[] = [];
  failWith: Error | null = null;

  async record(event: RunEvent): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.all.push(event);
  }
  async load(runId: string): Promise<Run | null> {
    const finished = this.all.filter((e): e is Extract<RunEvent, { type: 'RUN_FINISHED' }> => e.type === 'RUN_FINISHED' && e.run.id === runId);
    return finished.at(-1)?.run ?? null;
  }
  async list(_filter: RunFilter): Promise<Run[]> {
    return this.all.filter((e): e is Extract<RunEvent, { type: 'RUN_FINISHED' }> => e.type === 'RUN_FINISHED').map((e) => e.run);
  }
  async events(runId: string): Promise<RunEvent[]> {
    return this.all.filter((e) => ('runId' in e ? e.runId : e.run.id) === runId);
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
  recorder: MemoryRunRecorder;
  probe: ProbeState;
  policyFile: string;
  close: () => Promise<void>;
  resetProbe: () => void;
}

/** The registry on a temporary SQLite file with the probe plugin, and the executor with the in-process invoker. */
export async function startExecutor(options: { maxParallel?: number; deadlineMs?: number; maxReplans?: number; invoker?: new (...args: never[]) => ToolInvoker } = {}): Promise<ExecutorHarness> {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-exec-'));
  const pluginDir = join(work, 'plugins');
  const dir = writePlugin(pluginDir, { folder: 'probe', packageJson: pluginPackage('@fixtures/probe', '1.0.0'), entry: PROBE_SOURCE });
  const policyFile = join(work, 'policy.json');
  writePolicy(policyFile, ROLES);
  const recorder = new MemoryRunRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      RegistryModule.forRoot({ database: { type: 'sqlite', path: join(work, 'toolgate.db') }, pluginDirs: [pluginDir], policyFile, newVersionState: ToolVersionState.ACTIVE, isGlobal: true }),
      ExecutorModule.forRoot({
        maxParallel: options.maxParallel ?? 4,
        deadlineMs: options.deadlineMs ?? 10_000,
        maxSteps: 20,
        maxReplans: options.maxReplans ?? 2,
        providers: [{ provide: RunRecorder, useValue: recorder }, ...(options.invoker ? [{ provide: ToolInvoker, useClass: options.invoker }] : [])],
      }),
    ],
  }).compile();
  const app = await moduleRef.init();
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
