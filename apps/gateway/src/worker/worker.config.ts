import { hostname } from 'node:os';
import { type ExecutorModuleOptions, executorEnvSchema, executorModuleOptionsFromEnv } from '@toolgate/executor';
import { type NatsOptions, natsOptionsFromEnv, type RegistryModuleOptions, registryEnvSchema, registryOptionsFromEnv } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { z } from 'zod';
import { flag } from '../config/gateway.config';
import type { TracingSettings } from '../tracing/tracing.bootstrap';

/** What a tool worker reads beyond the registry's plugin and NATS settings and the executor's isolation settings. */
export const workerEnvSchema = z.object({
  /** How this worker is named in announcements, health and logs; unique per process. */
  TOOLGATE_WORKER_ID: z
    .string()
    .regex(/^[\w.:@-]{1,200}$/, 'letters, digits and . _ : @ - only, at most 200')
    .optional(),
  /** Calls run at once; a call beyond it is answered OVERLOADED. */
  TOOLGATE_WORKER_CAPACITY: z.coerce.number().int().min(1).max(100_000).default(16),
  TOOLGATE_WORKER_HEARTBEAT_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Spans of the calls it serves, children of the gateway's step span (its traceparent travels with the call). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('toolgate-worker'),
  TOOLGATE_TRACE_CONSOLE: flag.default(false),
});

export interface WorkerConfig {
  workerId: string;
  capacity: number;
  heartbeatMs: number;
  logLevel: z.infer<typeof workerEnvSchema>['LOG_LEVEL'];
  tracing: TracingSettings;
  nats: NatsOptions;
  /** Plugin loading as the gateway's (folders, import limits); the catalog lives in memory: a worker keeps nothing. */
  registry: RegistryModuleOptions;
  /** Plugin isolation (worker processes, their limits) as the gateway's. */
  executor: ExecutorModuleOptions;
}

/** Validates a worker's environment once (every bad variable named); NATS is required, a worker without it has nobody to serve. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): WorkerConfig {
  const schemas = [workerEnvSchema, registryEnvSchema, executorEnvSchema] as const;
  const issues = schemas.flatMap((schema) => {
    const result = schema.safeParse(env);
    return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  });
  if (!env.TOOLGATE_NATS_URL) issues.push({ path: 'TOOLGATE_NATS_URL', message: 'is required for a worker (or --nats <url>)' });
  if (issues.length > 0) throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid worker configuration', issues);
  const worker = workerEnvSchema.parse(env);
  const registryEnv = registryEnvSchema.parse(env);
  const registry = registryOptionsFromEnv(registryEnv, cwd);
  return {
    workerId: worker.TOOLGATE_WORKER_ID ?? `${hostname().replace(/[^\w.-]/g, '-')}-${process.pid}`,
    capacity: worker.TOOLGATE_WORKER_CAPACITY,
    heartbeatMs: worker.TOOLGATE_WORKER_HEARTBEAT_MS,
    logLevel: worker.LOG_LEVEL,
    tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: worker.OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: worker.OTEL_SERVICE_NAME, TOOLGATE_TRACE_CONSOLE: worker.TOOLGATE_TRACE_CONSOLE },
    nats: natsOptionsFromEnv(registryEnv),
    registry: { ...registry, database: { type: 'sqlite', path: ':memory:' }, policyFile: null, remote: null },
    executor: executorModuleOptionsFromEnv(executorEnvSchema.parse(env)),
  };
}
