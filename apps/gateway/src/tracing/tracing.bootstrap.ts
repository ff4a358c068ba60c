import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { TypeormInstrumentation } from '@opentelemetry/instrumentation-typeorm';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/** What tracing reads: the gateway's and a tool worker's config both carry it. */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME: string;
  TOOLGATE_TRACE_CONSOLE: boolean;
}

/**
 * Starts OpenTelemetry. Must run before Nest, Express, GraphQL, TypeORM and pino are required so the
 * instrumentations can patch them. Spans are exported over OTLP when an endpoint is configured, or
 * printed with TOOLGATE_TRACE_CONSOLE; with neither, tracing is off and nothing is patched (the
 * instrumentations would only slow every require down).
 */
export function startTracing(config: TracingSettings): NodeSDK | null {
  const spanProcessors: SpanProcessor[] = [];
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    const url = `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`;
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  }
  if (config.TOOLGATE_TRACE_CONSOLE) spanProcessors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  if (spanProcessors.length === 0) return null;

  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME, [ATTR_SERVICE_VERSION]: '0.1.0' }),
    spanProcessors,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url?.startsWith('/health') === true }),
      new ExpressInstrumentation(),
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      new TypeormInstrumentation(),
      new PinoInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}
