import { Injectable } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import { AccessPolicyService, CatalogService, type Principal } from '@toolgate/registry';
import { ErrorCode, type Run, type RunStep, ToolgateError } from '@toolgate/sdk';

export const TOOL_QUALITY_BOUNDS = {
  sinceHours: { min: 1, max: 720, default: 24 },
  bucketMinutes: { min: 5, max: 1440, default: 60 },
  maxBuckets: 200,
} as const;

/** The store's most runs per listing: the report reads the tenant's newest ones only. */
const RUN_LIMIT = 500;
const FAILING_QUERIES_PER_TOOL = 5;

export interface ToolQualityCommand {
  sinceHours?: number;
  bucketMinutes?: number;
}

export interface ToolQualityBucketView {
  start: string;
  calls: number;
  failures: number;
  retries: number;
  p95Ms: number | null;
}

export interface FailingQueryView {
  runId: string;
  task: string | null;
  code: string;
  at: string;
}

export interface ToolQualityView {
  tool: string;
  toolId: string;
  version: string;
  calls: number;
  failures: number;
  failureRate: number;
  retries: number;
  p95Ms: number | null;
  series: ToolQualityBucketView[];
  failingQueries: FailingQueryView[];
}

export interface ToolQualityReportView {
  since: string;
  until: string;
  bucketMinutes: number;
  runsConsidered: number;
  truncated: boolean;
  tools: ToolQualityView[];
}

/** One call of one tool version as a step of a run shows it. */
interface Call {
  failed: boolean;
  retries: number;
  /** Null when the step's duration belongs to another call (the fallback of a failed tool). */
  durationMs: number | null;
  at: number;
  code: string;
}

interface Tally {
  calls: number;
  failures: number;
  retries: number;
  durations: number[];
}

/**
 * Where tool calls break: per tool version the caller may discover, calls, failures, retries and p95
 * latency over a window of the tenant's newest runs, in time buckets, with the tasks that led to failures.
 */
@Injectable()
export class ToolQualityUseCase {
  constructor(
    private readonly store: RunStore,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
  ) {}

  async execute(principal: Principal, command: ToolQualityCommand = {}): Promise<ToolQualityReportView> {
    const { sinceHours, bucketMinutes } = validated(command);
    const until = Date.now();
    const since = until - sinceHours * 3_600_000;
    const bucketMs = bucketMinutes * 60_000;
    const bucketCount = Math.ceil((until - since) / bucketMs);

    const listed = await this.store.list({ tenant: principal.tenant, limit: RUN_LIMIT });
    const runs = listed.filter((run) => within(Date.parse(run.startedAt), since, until));
    const oldest = listed.at(-1);
    // Newest first: a full page whose oldest run is still in the window hides older runs of the window.
    const truncated = listed.length >= RUN_LIMIT && oldest !== undefined && Date.parse(oldest.startedAt) >= since;

    const callsByTool = new Map<string, { task: string | null; runId: string; call: Call }[]>();
    for (const run of runs) {
      for (const step of run.steps) {
        for (const [tool, call] of callsOf(step, run)) {
          const list = callsByTool.get(tool) ?? [];
          list.push({ runId: run.id, task: run.task ?? null, call });
          callsByTool.set(tool, list);
        }
      }
    }

    const tools: ToolQualityView[] = [];
    for (const [tool, calls] of callsByTool) {
      const ref = splitRef(tool);
      if (!ref || !this.discoverable(principal, ref.toolId, ref.version)) continue;
      const total = emptyTally();
      const buckets = Array.from({ length: bucketCount }, emptyTally);
      for (const { call } of calls) {
        const index = Math.min(bucketCount - 1, Math.max(0, Math.floor((call.at - since) / bucketMs)));
        add(total, call);
        add(buckets[index], call);
      }
      const failingQueries = calls
        .filter(({ call }) => call.failed)
        .sort((a, b) => b.call.at - a.call.at)
        .slice(0, FAILING_QUERIES_PER_TOOL)
        .map(({ runId, task, call }) => ({ runId, task, code: call.code, at: new Date(call.at).toISOString() }));
      tools.push({
        tool,
        ...ref,
        calls: total.calls,
        failures: total.failures,
        failureRate: total.failures / total.calls,
        retries: total.retries,
        p95Ms: p95(total.durations),
        series: buckets.map((bucket, i) => ({
          start: new Date(since + i * bucketMs).toISOString(),
          calls: bucket.calls,
          failures: bucket.failures,
          retries: bucket.retries,
          p95Ms: p95(bucket.durations),
        })),
        failingQueries,
      });
    }
    tools.sort((a, b) => b.failureRate - a.failureRate || b.failures - a.failures || b.calls - a.calls || a.tool.localeCompare(b.tool));

    return { since: new Date(since).toISOString(), until: new Date(until).toISOString(), bucketMinutes, runsConsidered: runs.length, truncated, tools };
  }

  /** What the caller may not discover is invisible to it (as in toolHealth). */
  private discoverable(principal: Principal, toolId: string, version: string): boolean {
    const manifest = this.catalog.manifest(toolId, version);
    return manifest !== undefined && this.access.can(principal, 'discover', toolId, manifest.permissions.risk);
  }
}

function validated(command: ToolQualityCommand): { sinceHours: number; bucketMinutes: number } {
  const sinceHours = command.sinceHours ?? TOOL_QUALITY_BOUNDS.sinceHours.default;
  const bucketMinutes = command.bucketMinutes ?? TOOL_QUALITY_BOUNDS.bucketMinutes.default;
  checkRange('sinceHours', sinceHours, TOOL_QUALITY_BOUNDS.sinceHours);
  checkRange('bucketMinutes', bucketMinutes, TOOL_QUALITY_BOUNDS.bucketMinutes);
  const buckets = (sinceHours * 60) / bucketMinutes;
  if (buckets > TOOL_QUALITY_BOUNDS.maxBuckets) {
    const message = `must make at most ${TOOL_QUALITY_BOUNDS.maxBuckets} buckets (sinceHours*60/bucketMinutes); ${sinceHours}h needs at least ${Math.ceil((sinceHours * 60) / TOOL_QUALITY_BOUNDS.maxBuckets)}`;
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `bucketMinutes=${bucketMinutes} ${message}`, [{ path: '/bucketMinutes', message }]);
  }
  return { sinceHours, bucketMinutes };
}

function checkRange(field: 'sinceHours' | 'bucketMinutes', value: number, { min, max }: { min: number; max: number }): void {
  if (Number.isInteger(value) && value >= min && value <= max) return;
  const message = `must be an integer from ${min} to ${max}`;
  throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${field}=${value} ${message}`, [{ path: `/${field}`, message }]);
}

/**
 * The tool calls one step stands for, keyed by `namespace/name@version`. `fallbackOf` is the tool that
 * failed before `tool` was called (FALLBACK: it answered; FAILED: it failed too). A step's attempts and
 * duration span both calls and cannot be split: the retries beyond one attempt per call and the
 * duration go to the tool that failed first, whose failure the step's time was spent on.
 */
function callsOf(step: RunStep, run: Run): [string, Call][] {
  if (step.status !== 'SUCCEEDED' && step.status !== 'FAILED' && step.status !== 'FALLBACK') return [];
  const started = Date.parse(step.startedAt ?? '');
  const at = Number.isNaN(started) ? Date.parse(run.startedAt) : started;
  const code = step.error?.code ?? 'FAILED';
  const failed = step.status === 'FAILED';
  if (!step.fallbackOf) return [[step.tool, { failed, retries: Math.max(0, step.attempts - 1), durationMs: step.durationMs, at, code }]];
  return [
    // The replaced tool's own error is not kept on the step (step.error, if any, is the fallback's).
    [step.fallbackOf, { failed: true, retries: Math.max(0, step.attempts - 2), durationMs: step.durationMs, at, code: 'FAILED' }],
    [step.tool, { failed, retries: 0, durationMs: null, at, code }],
  ];
}

function splitRef(tool: string): { toolId: string; version: string } | null {
  const at = tool.lastIndexOf('@');
  return at > 0 && at < tool.length - 1 ? { toolId: tool.slice(0, at), version: tool.slice(at + 1) } : null;
}

const within = (at: number, since: number, until: number): boolean => at >= since && at <= until;

const emptyTally = (): Tally => ({ calls: 0, failures: 0, retries: 0, durations: [] });

function add(tally: Tally, call: Call): void {
  tally.calls++;
  if (call.failed) tally.failures++;
  tally.retries += call.retries;
  if (call.durationMs !== null) tally.durations.push(call.durationMs);
}

/** Nearest-rank p95; null without samples. */
function p95(samples: number[]): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1];
}
