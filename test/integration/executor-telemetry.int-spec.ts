import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { register } from 'prom-client';
import { type ExecutorHarness, plan, principal, startExecutor, step } from './executor-fixtures';

const worker = principal('wendy', ['worker']);

/** Every sample of prom-client's default registry as `name{labels} value` lines. */
async function samples(): Promise<Map<string, number>> {
  const lines = (await register.metrics()).split('\n').filter((line) => line && !line.startsWith('#'));
  return new Map(
    lines.map((line) => {
      const at = line.lastIndexOf(' ');
      return [line.slice(0, at), Number(line.slice(at + 1))];
    }),
  );
}

/** How much each sample grew between two readings (only the ones that did). */
function growth(before: Map<string, number>, after: Map<string, number>, prefix: string): Record<string, number> {
  return Object.fromEntries([...after].filter(([key, value]) => key.startsWith(prefix) && value !== (before.get(key) ?? 0)).map(([key, value]) => [key, value - (before.get(key) ?? 0)]));
}

/**
 * What operators read of a run: the Prometheus counters the runtime keeps (calls by outcome and error
 * type, attempts, runs by status) and the OpenTelemetry GenAI `execute_tool` span of every tool call,
 * under its step's span. Real plugin tools, a real catalog, SQLite.
 */
describe('executor telemetry: metrics and execute_tool spans of real runs', () => {
  let h: ExecutorHarness;
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    h = await startExecutor();
  });

  afterAll(async () => {
    await h?.close();
    trace.disable();
  });

  beforeEach(() => exporter.reset());

  it('counts each call by tool, version, tenant and outcome: a success, a tool failure its fallback stood in for, and an output that breaks its schema', async () => {
    const before = await samples();
    const run = await h.runner.execute(plan(step('ok', 'probe/echo', { label: 'x' }), step('fb', 'probe/fail', { label: 'y' }), step('bad', 'probe/bad-output')), worker);
    expect(run.status).toBe('FAILED');
    const after = await samples();

    expect(growth(before, after, 'toolgate_tool_calls_total')).toEqual({
      'toolgate_tool_calls_total{tool="probe/echo",version="1.0.0",tenant="acme",outcome="succeeded",error_type=""}': 1,
      'toolgate_tool_calls_total{tool="probe/fail",version="1.0.0",tenant="acme",outcome="tool_error",error_type="TOOL_FAILED"}': 1,
      'toolgate_tool_calls_total{tool="probe/backup",version="1.0.0",tenant="acme",outcome="succeeded",error_type=""}': 1,
      'toolgate_tool_calls_total{tool="probe/bad-output",version="1.0.0",tenant="acme",outcome="tool_error",error_type="TOOL_FAILED"}': 1,
    });
    expect(growth(before, after, 'toolgate_tool_attempts_total')).toEqual({
      'toolgate_tool_attempts_total{tool="probe/echo",version="1.0.0",result="succeeded"}': 1,
      'toolgate_tool_attempts_total{tool="probe/fail",version="1.0.0",result="failed"}': 1,
      'toolgate_tool_attempts_total{tool="probe/backup",version="1.0.0",result="succeeded"}': 1,
      // The attempt succeeded (the tool answered); the answer failed the output check afterwards.
      'toolgate_tool_attempts_total{tool="probe/bad-output",version="1.0.0",result="succeeded"}': 1,
    });
    expect(growth(before, after, 'toolgate_runs_total')).toEqual({ 'toolgate_runs_total{status="FAILED",tenant="acme"}': 1 });
    expect(growth(before, after, 'toolgate_tool_call_duration_seconds_count')).toEqual({
      'toolgate_tool_call_duration_seconds_count{tool="probe/echo",version="1.0.0",outcome="succeeded"}': 1,
      'toolgate_tool_call_duration_seconds_count{tool="probe/fail",version="1.0.0",outcome="tool_error"}': 1,
      'toolgate_tool_call_duration_seconds_count{tool="probe/backup",version="1.0.0",outcome="succeeded"}': 1,
      'toolgate_tool_call_duration_seconds_count{tool="probe/bad-output",version="1.0.0",outcome="tool_error"}': 1,
    });
  });

  it('gives every tool call (a fallback too) its own execute_tool span under the step span, with the GenAI attributes and error.type', async () => {
    const run = await h.runner.execute(plan(step('fb', 'probe/fail', { label: 'y' })), worker);
    expect(run.status).toBe('SUCCEEDED');
    const spans = exporter.getFinishedSpans();
    const stepSpan = spans.find((s) => s.name === 'toolgate.step') as ReadableSpan;
    const calls = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(calls.map((s) => s.name)).toEqual(['execute_tool probe/fail', 'execute_tool probe/backup']);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(stepSpan.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(run.traceId);
      expect(call.attributes).toMatchObject({ 'gen_ai.tool.type': 'function', 'toolgate.run.id': run.id, 'toolgate.step.id': 'fb', 'toolgate.tool.version': '1.0.0' });
      expect(call.attributes['gen_ai.tool.call.id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(calls[0].attributes).toMatchObject({ 'gen_ai.tool.name': 'probe/fail', 'error.type': 'TOOL_FAILED' });
    expect(calls[0].status.code).toBe(2);
    expect(calls[1].attributes['gen_ai.tool.name']).toBe('probe/backup');
    expect(calls[1].attributes['error.type']).toBeUndefined();
    // Two calls, two ids.
    expect(new Set(calls.map((c) => c.attributes['gen_ai.tool.call.id'])).size).toBe(2);
  });
});
