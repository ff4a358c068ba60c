import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, graphql, REPO_ROOT, type RunningGateway, startGateway } from '../support/gateway-process';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** A minimal OTLP/HTTP (JSON) trace receiver, like Jaeger's port 4318. */
function startCollector(): Promise<{ server: Server; endpoint: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans })));
}

describe('tracing over OTLP', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let gateway: RunningGateway;
  let work: string;

  beforeAll(async () => {
    collector = await startCollector();
    work = mkdtempSync(join(tmpdir(), 'toolgate-trace-'));
    gateway = await startGateway({
      ...BM25_ONLY,
      TOOLGATE_DATA_DIR: join(work, 'data'),
      TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    collector?.server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('exports registry loads, and a search as one trace from HTTP through GraphQL to retrieval, with the trace id in the logs', async () => {
    const response = await graphql(gateway.url, '{ searchTools(input: { query: "convert kilometers to miles" }) { tool { id } } }');
    expect(response.errors).toBeUndefined();

    const deadline = Date.now() + 15_000;
    let retrieve: OtlpSpan | undefined;
    while (!retrieve && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      retrieve = collector.spans.find((s) => s.name === 'toolgate.retrieve');
    }
    expect(retrieve).toBeDefined();
    expect(collector.spans.some((s) => s.name === 'toolgate.registry.load')).toBe(true);

    const trace = collector.spans.filter((s) => s.traceId === retrieve?.traceId);
    const names = trace.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['POST /graphql', 'toolgate.retrieve']));
    expect(names.some((n) => n.startsWith('query') || n.startsWith('graphql'))).toBe(true);
    // Every span of the request hangs off the HTTP server span.
    const root = trace.find((s) => !s.parentSpanId);
    expect(root?.name).toBe('POST /graphql');

    const logged = gateway
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { trace_id?: string });
    expect(logged.some((record) => record.trace_id === retrieve?.traceId)).toBe(true);
  });
});
