import { type ExecutorModuleOptions, executorEnvSchema, executorModuleOptionsFromEnv } from '@toolgate/executor';
import { type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { type RegistryModuleOptions, registryEnvSchema, registryOptionsFromEnv } from '@toolgate/registry';
import { type RetrievalModuleOptions, retrievalEnvSchema, retrievalOptionsFromEnv } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { z } from 'zod';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const gatewayEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Unset: 127.0.0.1 without API keys, 0.0.0.0 with them. */
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(8),
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).max(100_000).default(2000),
  GRAPHQL_INTROSPECTION: flag.default(true),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('toolgate'),
  TOOLGATE_TRACE_CONSOLE: flag.default(false),
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
  return {
    gateway: gatewayEnvSchema.parse(env),
    registry: registryOptionsFromEnv(registryEnvSchema.parse(env), cwd),
    retrieval: retrievalOptionsFromEnv(retrievalEnvSchema.parse(env)),
    planner: plannerOptionsFromEnv(plannerEnvSchema.parse(env)),
    executor: executorModuleOptionsFromEnv(executorEnvSchema.parse(env)),
  };
}

/** Config safe to print: credentials in URLs and API keys are replaced. */
export function maskConfig(config: AppConfig): unknown {
  const mask = (value: unknown, key = ''): unknown => {
    if (/apiKey$/i.test(key) && typeof value === 'string') return '****';
    if (typeof value === 'string') return value.replace(/(\/\/[^:/@]+:)[^@]+@/, '$1****@');
    if (Array.isArray(value)) return value.map((item) => mask(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
    return value;
  };
  return mask(config);
}

export const APP_CONFIG = Symbol('APP_CONFIG');
