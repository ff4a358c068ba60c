import { z } from 'zod';
import { resilienceEnvSchema } from './resilience/resilience.config';

/** How plans run; the defaults apply when a field is absent. */
export interface ExecutorModuleOptions {
  /** Steps of one run that may call tools at the same time. */
  maxParallel: number;
  /** Working time of one run, approval waits excluded; every call's signal aborts when it is spent. */
  deadlineMs: number;
  /** Most steps one plan (or re-plan) may have. */
  maxSteps: number;
  /** Re-plans after failed steps, per run. */
  maxReplans: number;
}

export const DEFAULT_EXECUTOR_OPTIONS: Readonly<ExecutorModuleOptions> = Object.freeze({ maxParallel: 4, deadlineMs: 60_000, maxSteps: 20, maxReplans: 2 });

export const executorEnvSchema = z.object({
  TOOLGATE_EXEC_MAX_PARALLEL: z.coerce.number().int().min(1).max(256).default(DEFAULT_EXECUTOR_OPTIONS.maxParallel),
  TOOLGATE_EXEC_DEADLINE_MS: z.coerce.number().int().min(100).max(86_400_000).default(DEFAULT_EXECUTOR_OPTIONS.deadlineMs),
  TOOLGATE_EXEC_MAX_STEPS: z.coerce.number().int().min(1).max(1000).default(DEFAULT_EXECUTOR_OPTIONS.maxSteps),
  TOOLGATE_EXEC_MAX_REPLANS: z.coerce.number().int().min(0).max(10).default(DEFAULT_EXECUTOR_OPTIONS.maxReplans),
  // Per-tool resilience, plugin isolation and health checks (resilienceOptionsFromEnv reads these).
  ...resilienceEnvSchema.shape,
});
export type ExecutorEnv = z.infer<typeof executorEnvSchema>;

export function executorOptionsFromEnv(env: ExecutorEnv): ExecutorModuleOptions {
  return { maxParallel: env.TOOLGATE_EXEC_MAX_PARALLEL, deadlineMs: env.TOOLGATE_EXEC_DEADLINE_MS, maxSteps: env.TOOLGATE_EXEC_MAX_STEPS, maxReplans: env.TOOLGATE_EXEC_MAX_REPLANS };
}
