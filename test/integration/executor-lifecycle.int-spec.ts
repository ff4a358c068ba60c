import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { executorEnvSchema, executorOptionsFromEnv } from '@toolgate/executor';
import { runIdOf } from '@toolgate/sdk';
import { type ExecutorHarness, plan, principal, startExecutor, step } from './executor-fixtures';

const owner = principal('alice', ['approver']);

describe('executor lifecycle: spans, shutdown, configuration', () => {
  const exporter = new InMemorySpanExporter();
  let h: ExecutorHarness;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    h = await startExecutor();
  });
  afterAll(async () => {
    await h?.close();
    trace.disable();
  });

  it('opens one toolgate.step span per started step, each a child of its run span toolgate.execute', async () => {
    exporter.reset();
    const run = await h.runner.execute(
      plan(step('a', 'probe/echo', { label: 'a' }), step('b', 'probe/fail', { label: 'b' }), step('c', 'probe/bad-output', {}, ['a']), step('d', 'probe/echo', { label: 'd' }, ['c'])),
      owner,
    );
    const spans = exporter.getFinishedSpans();
    const runSpan = spans.find((s) => s.name === 'toolgate.execute');
    const stepSpans = spans.filter((s) => s.name === 'toolgate.step');
    expect(runSpan?.spanContext().traceId).toBe(run.traceId);
    // d was skipped: it never started, so it has no span; every started step has exactly one.
    expect(stepSpans.map((s) => s.attributes['toolgate.step.id']).sort()).toEqual(['a', 'b', 'c']);
    expect(stepSpans.every((s) => s.parentSpanContext?.spanId === runSpan?.spanContext().spanId && s.spanContext().traceId === run.traceId)).toBe(true);
    expect(stepSpans.find((s) => s.attributes['toolgate.step.id'] === 'b')?.events.map((e) => e.name)).toEqual(['toolgate.fallback']);
  });

  it('a run waiting for approval is released as it pauses (held by nobody), and a shutdown never runs it', async () => {
    const paused = await h.runner.execute(plan(step('wipe', 'probe/wipe', { target: 'db' })), owner, { runId: 'paused-at-shutdown' });
    expect(paused.status).toBe('PENDING_APPROVAL');
    expect(h.recorder.released).toEqual(['paused-at-shutdown']);
    await h.close();
    const events = h.recorder.all.filter((e) => runIdOf(e) === 'paused-at-shutdown').map((e) => e.type);
    expect(events).toEqual(['RUN_STARTED', 'APPROVAL_REQUESTED']);
    expect(h.recorder.released).toEqual(['paused-at-shutdown']);
    expect(h.probe.wiped).toEqual([]);
  });

  it('reads its limits from the environment, with defaults, and names a bad variable', () => {
    expect(executorOptionsFromEnv(executorEnvSchema.parse({}))).toEqual({ maxParallel: 4, deadlineMs: 60_000, maxSteps: 20, maxReplans: 2 });
    expect(executorOptionsFromEnv(executorEnvSchema.parse({ TOOLGATE_EXEC_MAX_PARALLEL: '8', TOOLGATE_EXEC_MAX_REPLANS: '0' }))).toMatchObject({ maxParallel: 8, maxReplans: 0 });
    const bad = executorEnvSchema.safeParse({ TOOLGATE_EXEC_MAX_STEPS: '0' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['TOOLGATE_EXEC_MAX_STEPS']);
  });
});
