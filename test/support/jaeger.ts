import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { startServiceProcess } from './service-process';

/** A span as Jaeger's query API returns it (`/api/traces/<id>`). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; type: string; value: unknown }[];
  processID: string;
}

export interface RunningJaeger {
  /** Where to send OTLP/HTTP (what OTEL_EXPORTER_OTLP_ENDPOINT takes). */
  otlpEndpoint: string;
  queryUrl: string;
  /** The spans of one trace, [] while Jaeger has none of it. */
  trace(traceId: string): Promise<{ spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> }>;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Runs the real Jaeger v2 backend (built and cached by scripts/ensure-jaeger.sh; its path in
 * TOOLGATE_JAEGER_BIN) on free ports of 127.0.0.1, with in-memory storage: an OTLP/HTTP receiver and
 * the query API. Missing, it fails the test, never skips it.
 */
export async function startJaeger(work: string): Promise<RunningJaeger> {
  // Where scripts/ensure-jaeger.sh caches it, when the variable is not set (jest run by hand).
  const bin = process.env.TOOLGATE_JAEGER_BIN ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'toolgate', 'jaeger', 'v1.76.0', 'jaeger');
  if (!existsSync(bin)) throw new Error(`no Jaeger at ${bin}: \`eval "$(bash scripts/ensure-jaeger.sh)"\` builds it once and sets TOOLGATE_JAEGER_BIN (npm test does)`);
  const [otlp, query, queryGrpc, health] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const config = {
    service: {
      extensions: ['jaeger_storage', 'jaeger_query', 'healthcheckv2'],
      pipelines: { traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['jaeger_storage_exporter'] } },
      telemetry: { metrics: { level: 'none' }, logs: { level: 'warn' } },
    },
    extensions: {
      jaeger_storage: { backends: { memstore: { memory: { max_traces: 10_000 } } } },
      jaeger_query: { storage: { traces: 'memstore' }, http: { endpoint: `127.0.0.1:${query}` }, grpc: { endpoint: `127.0.0.1:${queryGrpc}` } },
      healthcheckv2: { use_v2: true, http: { endpoint: `127.0.0.1:${health}` } },
    },
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${otlp}` } } } },
    processors: { batch: { timeout: '100ms' } },
    exporters: { jaeger_storage_exporter: { trace_storage: 'memstore' } },
  };
  const configFile = join(work, 'jaeger.yaml');
  // JSON is YAML.
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const queryUrl = `http://127.0.0.1:${query}`;
  const service = await startServiceProcess('jaeger', bin, ['--config', configFile], `${queryUrl}/api/services`, 'scripts/ensure-jaeger.sh builds it');
  return {
    otlpEndpoint: `http://127.0.0.1:${otlp}`,
    queryUrl,
    trace: async (traceId) => {
      const response = await fetch(`${queryUrl}/api/traces/${traceId}`);
      if (response.status === 404) return { spans: [], processes: {} };
      const body = (await response.json()) as { data?: { spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> }[] };
      return body.data?.[0] ?? { spans: [], processes: {} };
    },
    ...service,
  };
}
