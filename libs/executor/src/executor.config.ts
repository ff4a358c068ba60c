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

/** What the audit keeps of runs, and how a process holds the runs it runs. */
export interface RunStorageOptions {
  /** Bytes of one step's output the audit stores (its JSON); a larger output is stored as a truncation marker. */
  maxStepOutputBytes: number;
  /** Bytes of outputs one run stores in all; steps past it store truncation markers. */
  maxRunOutputBytes: number;
  /** Finished runs older than this many days are removed in the background; 0 keeps them forever. */
  retentionDays: number;
  /** How often a process says it still holds its runs; a run whose owner stayed silent 3 times as long is recovered by another. */
  heartbeatMs: number;
  /** Heartbeats, recovery of runs a dead process left and retention run on a schedule (a server); off for a short-lived process (the CLI). */
  maintenance: boolean;
}

/** How plans run and where tool code runs (`resilienceOptionsFromEnv`); the defaults apply when a field is absent. */
export interface ExecutorModuleOptions extends RunLimits {
  /** Output caps of the audit, retention, ownership of runs and crash recovery. */
  storage: RunStorageOptions;
  /** `worker`: plugin code runs in worker processes that can be killed; `none`: in the server's thread (code you trust). */
  isolation: 'worker' | 'none';
  /** Per tool version: timeout, retries, breaker, bulkhead, drain on shutdown. */
  resilience: ResilienceOptions;
  /** Plugin worker processes (isolation `worker`). */
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
  TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  TOOLGATE_RUN_MAX_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  TOOLGATE_RUN_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  TOOLGATE_RUN_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  // Per-tool resilience, plugin isolation and health checks.
  ...resilienceEnvSchema.shape,
});
export type ExecutorEnv = z.infer<typeof executorEnvSchema>;

/** The run limits; `resilienceOptionsFromEnv` reads the rest of the executor's options from the same environment. */
export function executorOptionsFromEnv(env: ExecutorEnv): RunLimits {
  return { maxParallel: env.TOOLGATE_EXEC_MAX_PARALLEL, deadlineMs: env.TOOLGATE_EXEC_DEADLINE_MS, maxSteps: env.TOOLGATE_EXEC_MAX_STEPS, maxReplans: env.TOOLGATE_EXEC_MAX_REPLANS };
}

/** The audit's caps, retention and heartbeat; maintenance stays off until a server turns it on. */
export function runStorageOptionsFromEnv(env: ExecutorEnv): RunStorageOptions {
  return {
    maxStepOutputBytes: env.TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES,
    maxRunOutputBytes: env.TOOLGATE_RUN_MAX_OUTPUT_BYTES,
    retentionDays: env.TOOLGATE_RUN_RETENTION_DAYS,
    heartbeatMs: env.TOOLGATE_RUN_HEARTBEAT_MS,
    maintenance: false,
  };
}

/** The executor's whole options from its validated environment. */
export function executorModuleOptionsFromEnv(env: ExecutorEnv): ExecutorModuleOptions {
  const { health, ...tools } = resilienceOptionsFromEnv(env);
  return { ...executorOptionsFromEnv(env), storage: runStorageOptionsFromEnv(env), ...tools, health: { ...health, scheduled: false } };
}

export const DEFAULT_EXECUTOR_OPTIONS: Readonly<ExecutorModuleOptions> = Object.freeze(executorModuleOptionsFromEnv(executorEnvSchema.parse({})));
