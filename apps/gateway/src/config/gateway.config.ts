import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { z } from 'zod';

/** An env boolean: true|false|1|0. */
export const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const gatewayEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Unset: 127.0.0.1 without API keys, 0.0.0.0 with them. */
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(8),
  /** Most an operation may cost (see graphql/operation.costs.ts): a tool call is 10, a search 10 plus its results. */
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).max(1_000_000).default(2000),
  /** JSON request bodies and WebSocket messages: one 10 MiB image is ~13.4 MiB in base64. */
  TOOLGATE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  TOOLGATE_WS_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(256),
  TOOLGATE_WS_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(8),
  /** Cost units a principal may spend per minute, over HTTP and WebSocket together; 0 turns rate limiting off. */
  TOOLGATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000_000).default(120_000),
  /** Cost units a principal may spend at once; at least GRAPHQL_MAX_COMPLEXITY, so every admissible operation can pass. */
  TOOLGATE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000_000).default(20_000),
  GRAPHQL_INTROSPECTION: flag.default(true),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('toolgate'),
  TOOLGATE_TRACE_CONSOLE: flag.default(false),
  /** Prometheus metrics at GET /metrics (a platform admin's key when keys exist); false: no endpoint. */
  TOOLGATE_METRICS: flag.default(true),
  /** The operator console at /console (a static app over the public GraphQL API); false: not served. */
  TOOLGATE_CONSOLE: flag.default(true),
  /** Where a run's trace opens, `{traceId}` standing for its id, e.g. http://localhost:16686/trace/{traceId} (Jaeger); unset: no link. */
  TOOLGATE_TRACE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((url) => url.includes('{traceId}'), { message: 'must contain {traceId}, e.g. http://localhost:16686/trace/{traceId}' })
    .optional(),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;

/** Checks the environment against each schema and names every bad variable at once (INVALID_CONFIG). */
export function validateEnv(schemas: readonly z.ZodType[], env: NodeJS.ProcessEnv): void {
  const issues = schemas.flatMap((schema) => {
    const result = schema.safeParse(env);
    return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  });
  if (issues.length > 0) throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid configuration', issues);
}
