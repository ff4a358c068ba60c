import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from '../security/support/two-tenants';
import { graphql, REPO_ROOT, type RunningWorker, startWorker } from '../support/gateway-process';
import { type JaegerSpan, type RunningJaeger, startJaeger } from '../support/jaeger';
import { type NatsServerHandle, startNats } from '../support/nats-server';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';
import { natsEnv, REMOTE_TOOLS, USERS } from '../support/remote-fixtures';
import { eventually } from '../support/service-process';

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

interface RunAnswer {
  id: string;
  status: string;
  traceId: string;
  steps: { id: string; tool: string; status: string }[];
}

const tagOf = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

/** The chain of operation names from a span up to the trace's root. */
function ancestry(span: JaegerSpan, spans: JaegerSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanID, s]));
  const chain: string[] = [];
  for (let at: JaegerSpan | undefined = span; at; at = byId.get(parentOf(at) ?? '')) chain.push(at.operationName);
  return chain;
}

/**
 * Traces proven end to end: the built gateway sends OTLP/HTTP to a real Jaeger (v2, built from its Go
 * module by scripts/ensure-jaeger.sh), and the test reads each trace back from Jaeger's query API.
 */
describe('tracing into a real Jaeger', () => {
  let jaeger: RunningJaeger;
  let server: TwoTenantServer;
  let nats: NatsServerHandle;
  let worker: RunningWorker;
  const work = mkdtempSync(join(tmpdir(), 'toolgate-jaeger-'));

  beforeAll(async () => {
    jaeger = await startJaeger(work);
    const policy = `${TWO_TENANT_POLICY}
mcpServers:
  everything:
    command: ${process.execPath}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
`;
    // A remote tool worker exporting to the same Jaeger: its call spans must join the gateway's traces.
    nats = await startNats({ users: USERS });
    const workerPlugins = join(work, 'worker-plugins');
    writePlugin(workerPlugins, { folder: 'remote', packageJson: pluginPackage('@fixtures/remote', '1.0.0'), entry: REMOTE_TOOLS });
    worker = await startWorker('traced-worker', {
      ...natsEnv(nats.url, 'worker'),
      TOOLGATE_PLUGIN_DIRS: workerPlugins,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'toolgate-e2e-worker',
    });
    server = await startTwoTenantServer(
      { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'toolgate-e2e', ...natsEnv(nats.url, 'gateway') },
      { policy },
    );
  });

  afterAll(async () => {
    await server?.stop();
    await worker?.kill();
    await nats?.stop();
    await jaeger?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** The run's trace once Jaeger has its tool call spans (batches arrive over a few hundred ms). */
  const traceOf = (run: RunAnswer, calls: number) =>
    eventually(`trace ${run.traceId} in Jaeger`, async () => {
      const trace = await jaeger.trace(run.traceId);
      return trace.spans.filter((s) => tagOf(s, 'gen_ai.operation.name') === 'execute_tool' && s.operationName.startsWith('execute_tool')).length >= calls ? trace : undefined;
    });

  it('holds one trace per runTask, from the HTTP request through GraphQL, retrieval, planning and execution down to each tool call, linked to the run both ways', async () => {
    const answer = await graphql<{ runTask: RunAnswer }>(server.url, 'mutation { runTask(task: { text: "convert 10 miles to km" }) { id status traceId steps { id tool status } } }', {
      key: KEYS.acmeAnalyst,
    });
    expect(answer.errors).toBeUndefined();
    const run = answer.data?.runTask as RunAnswer;
    expect(run.status).toBe('SUCCEEDED');
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);

    const { spans, processes } = await traceOf(run, 1);
    // Run → trace: the run's traceId is this trace, and every span is in it.
    expect(new Set(spans.map((s) => s.traceID))).toEqual(new Set([run.traceId]));
    expect(Object.values(processes).map((p) => p.serviceName)).toEqual(['toolgate-e2e']);
    const names = spans.map((s) => s.operationName);
    expect(names).toEqual(expect.arrayContaining(['POST /graphql', 'toolgate.retrieve', 'toolgate.plan', 'toolgate.execute', 'toolgate.step', 'execute_tool units/convert']));
    const roots = spans.filter((s) => !parentOf(s));
    expect(roots.map((s) => s.operationName)).toEqual(['POST /graphql']);

    const call = spans.find((s) => s.operationName === 'execute_tool units/convert') as JaegerSpan;
    expect(ancestry(call, spans).slice(0, 3)).toEqual(['execute_tool units/convert', 'toolgate.step', 'toolgate.execute']);
    expect(ancestry(call, spans).at(-1)).toBe('POST /graphql');
    expect(ancestry(call, spans).some((name) => /^mutation/.test(name))).toBe(true);
    expect(tagOf(call, 'gen_ai.tool.name')).toBe('units/convert');
    expect(tagOf(call, 'gen_ai.tool.call.id')).toMatch(/^[0-9a-f-]{36}$/);
    // Trace → run: the execution spans name the run and its step.
    expect(tagOf(call, 'toolgate.run.id')).toBe(run.id);
    expect(tagOf(call, 'toolgate.step.id')).toBe(run.steps[0].id);
    const execute = spans.find((s) => s.operationName === 'toolgate.execute') as JaegerSpan;
    expect(tagOf(execute, 'toolgate.run.id')).toBe(run.id);
    // Retrieval and planning hang off the same request.
    for (const name of ['toolgate.retrieve', 'toolgate.plan']) {
      expect(ancestry(spans.find((s) => s.operationName === name) as JaegerSpan, spans).at(-1)).toBe('POST /graphql');
    }

    // The boot's catalog load is a trace of its own, found by Jaeger's search.
    const loads = (await (await fetch(`${jaeger.queryUrl}/api/traces?service=toolgate-e2e&operation=toolgate.registry.load&limit=5`)).json()) as { data: unknown[] };
    expect(loads.data.length).toBeGreaterThan(0);

    // The logs of the request carry the trace id.
    const logged = server.gateway
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { trace_id?: string });
    expect(logged.some((record) => record.trace_id === run.traceId)).toBe(true);
  });

  it('shows an MCP tool call as its MCP client span (tools/call) under the execute_tool span, a failing one with error.type', async () => {
    const answer = await graphql<{ executePlan: RunAnswer }>(server.url, 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status traceId steps { id tool status } } }', {
      key: KEYS.acmeAdmin,
      variables: { plan: { steps: [{ id: 'say', tool: 'everything/echo', arguments: { message: 'traced' } }] } },
    });
    expect(answer.errors).toBeUndefined();
    const run = answer.data?.executePlan as RunAnswer;
    expect(run.status).toBe('SUCCEEDED');
    const { spans } = await eventually('the MCP client span', async () => {
      const trace = await traceOf(run, 1);
      return trace.spans.some((s) => s.operationName === 'tools/call echo') ? trace : undefined;
    });
    const client = spans.find((s) => s.operationName === 'tools/call echo') as JaegerSpan;
    expect(ancestry(client, spans).slice(0, 4)).toEqual(['tools/call echo', 'execute_tool everything/echo', 'toolgate.step', 'toolgate.execute']);
    expect(tagOf(client, 'span.kind')).toBe('client');
    expect(tagOf(client, 'mcp.method.name')).toBe('tools/call');
    expect(tagOf(client, 'toolgate.mcp.server')).toBe('everything');
    expect(tagOf(client, 'network.transport')).toBe('pipe');

    const failed = await graphql<{ executePlan: RunAnswer }>(server.url, 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status traceId steps { id tool status } } }', {
      key: KEYS.acmeAdmin,
      variables: { plan: { steps: [{ id: 'bad', tool: 'units/convert', arguments: { value: 1, from: 'mi', to: 'parsec-per-fortnight' } }] } },
    });
    const failedRun = failed.data?.executePlan as RunAnswer;
    expect(failedRun?.status).toBe('FAILED');
    const failedTrace = await traceOf(failedRun, 1);
    const failedCall = failedTrace.spans.find((s) => s.operationName === 'execute_tool units/convert') as JaegerSpan;
    expect(tagOf(failedCall, 'error.type')).toEqual(expect.any(String));
    expect(tagOf(failedCall, 'error')).toBe(true);
  });

  it("continues the trace on a remote tool worker: its call span (the worker's own service) is a child of the gateway's tool call span", async () => {
    const answer = await graphql<{ executePlan: RunAnswer }>(server.url, 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status traceId steps { id tool status } } }', {
      key: KEYS.acmeAdmin,
      variables: { plan: { steps: [{ id: 'rest', tool: 'remote/nap', arguments: { ms: 5, label: 'traced' } }] } },
    });
    expect(answer.errors).toBeUndefined();
    const run = answer.data?.executePlan as RunAnswer;
    expect(run.status).toBe('SUCCEEDED');
    const trace = await eventually('the worker span in Jaeger', async () => {
      const found = await traceOf(run, 1);
      return found.spans.some((s) => s.operationName === 'toolgate.worker.call') ? found : undefined;
    });
    const call = trace.spans.find((s) => s.operationName === 'toolgate.worker.call') as JaegerSpan;
    expect(trace.processes[call.processID].serviceName).toBe('toolgate-e2e-worker');
    expect(ancestry(call, trace.spans).slice(0, 4)).toEqual(['toolgate.worker.call', 'execute_tool remote/nap', 'toolgate.step', 'toolgate.execute']);
    expect(tagOf(call, 'span.kind')).toBe('server');
    expect(tagOf(call, 'toolgate.worker.id')).toBe('traced-worker');
    expect(tagOf(call, 'toolgate.run.id')).toBe(run.id);
  });
});
