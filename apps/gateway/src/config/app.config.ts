import { type ExecutorModuleOptions, executorEnvSchema, executorModuleOptionsFromEnv } from '@toolgate/executor';
import { type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { type RegistryModuleOptions, registryEnvSchema, registryOptionsFromEnv } from '@toolgate/registry';
import { type RetrievalModuleOptions, retrievalEnvSchema, retrievalOptionsFromEnv } from '@toolgate/retrieval';
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

export interface AppConfig {
  gateway: z.infer<typeof gatewayEnvSchema>;
  registry: RegistryModuleOptions;
  retrieval: RetrievalModuleOptions;
  planner: PlannerModuleOptions;
  /** Run limits, per-tool resilience, plugin isolation and health checks. */
  executor: ExecutorModuleOptions;
}

const SCHEMAS = [gatewayEnvSchema, registryEnvSchema, retrievalEnvSchema, plannerEnvSchema, executorEnvSchema] as const;

/** Validates the whole environment once, with one schema per lib; every bad variable is named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const issues = SCHEMAS.flatMap((schema) => {
    const result = schema.safeParse(env);
    return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  });
  if (issues.length > 0) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid configuration', issues);
  }
  const config = {
    gateway: gatewayEnvSchema.parse(env),
    registry: registryOptionsFromEnv(registryEnvSchema.parse(env), cwd),
    retrieval: retrievalOptionsFromEnv(retrievalEnvSchema.parse(env)),
    planner: plannerOptionsFromEnv(plannerEnvSchema.parse(env)),
    executor: executorModuleOptionsFromEnv(executorEnvSchema.parse(env)),
  };
  const conflicts = limitConflicts(config);
  if (conflicts.length > 0) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid configuration', conflicts);
  }
  return config;
}

/** Limits that are each valid but contradict one another: the server would refuse what it documents. */
function limitConflicts({ gateway, planner }: AppConfig): { path: string; message: string }[] {
  const conflicts: { path: string; message: string }[] = [];
  const imageBytes = planner.images?.maxBytes;
  // One image at its limit, base64-encoded, plus room for the rest of the request.
  if (imageBytes !== undefined && Math.ceil(imageBytes / 3) * 4 + 64 * 1024 > gateway.TOOLGATE_MAX_BODY_BYTES) {
    conflicts.push({ path: 'TOOLGATE_MAX_BODY_BYTES', message: `must hold one image of TOOLGATE_IMAGE_MAX_BYTES (${imageBytes}) in base64, at least ${Math.ceil(imageBytes / 3) * 4 + 64 * 1024}` });
  }
  if (gateway.TOOLGATE_RATE_LIMIT_PER_MINUTE > 0 && gateway.TOOLGATE_RATE_LIMIT_BURST < gateway.GRAPHQL_MAX_COMPLEXITY) {
    conflicts.push({ path: 'TOOLGATE_RATE_LIMIT_BURST', message: `must be at least GRAPHQL_MAX_COMPLEXITY (${gateway.GRAPHQL_MAX_COMPLEXITY}), or an admissible operation could never pass` });
  }
  return conflicts;
}

/** Config safe to print: credentials in URLs, API keys and passwords are replaced. */
export function maskConfig(config: AppConfig): unknown {
  const mask = (value: unknown, key = ''): unknown => {
    if (/(apiKey|password|seed)$/i.test(key) && typeof value === 'string') return '****';
    if (typeof value === 'string') return value.replace(/(\/\/[^:/@]+:)[^@]+@/, '$1****@');
    if (Array.isArray(value)) return value.map((item) => mask(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
    return value;
  };
  return mask(config);
}

export const APP_CONFIG = Symbol('APP_CONFIG');
