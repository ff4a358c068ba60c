import { z } from 'zod';
import { type HealthOptions, type IsolationOptions, type ResilienceOptions, resilienceEnvSchema, resilienceOptionsFromEnv } from './resilience/resilience.config';

/** How plans run; the defaults apply when a field is absent. */
export interface RunLimits {
  /** Steps of one run that may call tools at the same time. */
  maxParallel: number;
  /** Working time of one run, approval waits excluded; every call's signal aborts when it is spent. */
  deadlineMs: number;
  /** Most steps one plan (or re-plan) may have. */
  maxSteps: number;
  /** Re-plans after failed steps, per run. */
  maxReplans: number;
}

/** How plans run and where tool code runs (`resilienceOptionsFromEnv`); the defaults apply when a field is absent. */
export interface ExecutorModuleOptions extends RunLimits {
  /** `worker`: plugin code runs in worker threads that can be terminated; `none`: in the server's thread. */
  isolation: 'worker' | 'none';
  /** Per tool version: timeout, retries, breaker, bulkhead, drain on shutdown. */
  resilience: ResilienceOptions;
  /** Plugin worker threads (isolation `worker`). */
  worker: IsolationOptions;
  health: HealthOptions & {
    /** Check on a schedule from start-up (a server); off for a short-lived process (the CLI), where versions count as healthy. */
    scheduled: boolean;
  };
}

export const executorEnvSchema = z.object({
  TOOLGATE_EXEC_MAX_PARALLEL: z.coerce.number().int().min(1).max(256).default(4),
  TOOLGATE_EXEC_DEADLINE_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  TOOLGATE_EXEC_MAX_STEPS: z.coerce.number().int().min(1).max(1000).default(20),
  TOOLGATE_EXEC_MAX_REPLANS: z.coerce.number().int().min(0).max(10).default(2),
  // Per-tool resilience, plugin isolation and health checks.
  ...resilienceEnvSchema.shape,
});
export type ExecutorEnv = z.infer<typeof executorEnvSchema>;

/** The run limits; `resilienceOptionsFromEnv` reads the rest of the executor's options from the same environment. */
export function executorOptionsFromEnv(env: ExecutorEnv): RunLimits {
  return { maxParallel: env.TOOLGATE_EXEC_MAX_PARALLEL, deadlineMs: env.TOOLGATE_EXEC_DEADLINE_MS, maxSteps: env.TOOLGATE_EXEC_MAX_STEPS, maxReplans: env.TOOLGATE_EXEC_MAX_REPLANS };
}

/** The executor's whole options from its validated environment. */
export function executorModuleOptionsFromEnv(env: ExecutorEnv): ExecutorModuleOptions {
  const { health, ...tools } = resilienceOptionsFromEnv(env);
  return { ...executorOptionsFromEnv(env), ...tools, health: { ...health, scheduled: false } };
}

export const DEFAULT_EXECUTOR_OPTIONS: Readonly<ExecutorModuleOptions> = Object.freeze(executorModuleOptionsFromEnv(executorEnvSchema.parse({})));
