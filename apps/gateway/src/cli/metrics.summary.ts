/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/g;

const unescapeLabel = (value: string) => value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** The samples of a Prometheus text exposition (comments and blank lines skipped; a line it cannot read is skipped too). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = unescapeLabel(value);
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

export interface ToolRow {
  tool: string;
  calls: number;
  succeeded: number;
  toolErrors: number;
  refused: number;
  callerErrors: number;
  retries: number;
  /** Share of the tool's own failures among calls that reached it. */
  failureRate: number;
  p95: Percentile | null;
  /** The worst breaker state over tenants: CLOSED, HALF_OPEN or OPEN. */
  breaker: string;
}

/**
 * The bucket bound the 95th percentile lies under, in seconds; `atLeast` when it lies past the last
 * finite bucket (the true value is larger than `seconds`).
 */
export interface Percentile {
  seconds: number;
  atLeast: boolean;
}

export interface MetricsSummary {
  tools: ToolRow[];
  runs: Record<string, number>;
  approvalsPending: number;
  searches: number;
  searchP95: Percentile | null;
  indexDocuments: number;
  vectorsPending: number;
  residentMemoryBytes: number | null;
}

const sum = (samples: Sample[]) => samples.reduce((total, s) => total + s.value, 0);

/** The 95th percentile's bucket bound from cumulative `le` buckets (what histogram_quantile would interpolate within). */
function p95(buckets: Sample[]): Percentile | null {
  const byBound = new Map<number, number>();
  for (const b of buckets) {
    const bound = b.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(b.labels.le);
    byBound.set(bound, (byBound.get(bound) ?? 0) + b.value);
  }
  const sorted = [...byBound].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return null;
  const bound = sorted.find(([, count]) => count >= 0.95 * total)?.[0] ?? Number.POSITIVE_INFINITY;
  if (bound !== Number.POSITIVE_INFINITY) return { seconds: bound, atLeast: false };
  const lastFinite = sorted.at(-2)?.[0];
  return lastFinite === undefined ? null : { seconds: lastFinite, atLeast: true };
}

const BREAKER = ['CLOSED', 'HALF_OPEN', 'OPEN'];

/** The figures an operator looks at first, per tool version and overall, from one scrape. */
export function summarize(samples: Sample[]): MetricsSummary {
  const named = (name: string) => samples.filter((s) => s.name === name);
  const calls = named('toolgate_tool_calls_total');
  const keys = [...new Set(calls.map((s) => `${s.labels.tool}@${s.labels.version}`))].sort();
  const of = (list: Sample[], key: string) => list.filter((s) => `${s.labels.tool}@${s.labels.version}` === key);
  const tools = keys.map((key): ToolRow => {
    const mine = of(calls, key);
    const outcome = (name: string) => sum(mine.filter((s) => s.labels.outcome === name));
    const succeeded = outcome('succeeded');
    const toolErrors = outcome('tool_error');
    const states = of(named('toolgate_breaker_state'), key).map((s) => s.value);
    return {
      tool: key,
      calls: sum(mine),
      succeeded,
      toolErrors,
      refused: outcome('refused'),
      callerErrors: outcome('caller_error'),
      retries: sum(of(named('toolgate_tool_retries_total'), key)),
      failureRate: succeeded + toolErrors === 0 ? 0 : toolErrors / (succeeded + toolErrors),
      p95: p95(of(named('toolgate_tool_call_duration_seconds_bucket'), key)),
      breaker: BREAKER[Math.max(0, ...states)] ?? 'CLOSED',
    };
  });
  const runs: Record<string, number> = {};
  for (const s of named('toolgate_runs_total')) runs[s.labels.status] = (runs[s.labels.status] ?? 0) + s.value;
  const memory = named('process_resident_memory_bytes')[0];
  return {
    tools,
    runs,
    approvalsPending: sum(named('toolgate_approvals_pending')),
    searches: sum(named('toolgate_searches_total')),
    searchP95: p95(named('toolgate_search_stage_duration_seconds_bucket').filter((s) => s.labels.stage === 'total')),
    indexDocuments: sum(named('toolgate_index_documents')),
    vectorsPending: sum(named('toolgate_index_vectors_pending')),
    residentMemoryBytes: memory ? memory.value : null,
  };
}
