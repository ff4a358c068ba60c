import { DEFAULT_WORKER_OPTIONS } from '@toolgate/sdk/sandbox';
import { z } from 'zod';

const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** Environment for per-tool resilience, plugin isolation and health checks; validated once at boot by the gateway. */
export const resilienceEnvSchema = z.object({
  /** Consecutive failures that open a low-traffic tool version's breaker. */
  TOOLGATE_BREAKER_FAILURES: int(1, 1000, 5),
  /** How long an open breaker refuses calls before it lets one probe through (half-open). */
  TOOLGATE_BREAKER_HALF_OPEN_AFTER_MS: int(10, 3_600_000, 10_000),
  /** At or above this many calls per second a tool version counts as busy and its breaker judges the failure ratio instead. */
  TOOLGATE_BREAKER_BUSY_RPS: z.coerce.number().min(0.1).max(100_000).default(5),
  /** Failure ratio (0..1) over the sampling window that opens a busy tool version's breaker. */
  TOOLGATE_BREAKER_FAILURE_RATIO: z.coerce.number().gt(0).max(1).default(0.5),
  TOOLGATE_BREAKER_WINDOW_MS: int(1000, 3_600_000, 30_000),
  /**
   * Breakers are per tenant; a tool version is refused to every tenant only while this many tenants' own breakers are open
   * (each opened within the window), so one tenant's failures (its own expensive input) never shut a tool off for another.
   */
  TOOLGATE_BREAKER_MIN_TENANTS: int(1, 1000, 2),
  /** On a server with several tenants, the share (0..1] of a tool version's maxConcurrency one tenant may hold; its excess is OVERLOADED. */
  TOOLGATE_TENANT_MAX_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  /** Calls of one tenant that may wait for its fair share of a tool version; beyond them its excess is OVERLOADED. */
  TOOLGATE_TENANT_QUEUE: int(0, 100_000, 64),
  /** First retry delay; later ones grow exponentially with decorrelated jitter up to the cap. */
  TOOLGATE_RETRY_BASE_MS: int(1, 60_000, 100),
  TOOLGATE_RETRY_MAX_MS: int(1, 300_000, 2_000),
  /** Calls that may wait for a full bulkhead; 0 rejects the excess at once. */
  TOOLGATE_BULKHEAD_QUEUE: int(0, 10_000, 0),
  /** How long shutdown waits for calls in flight before cancelling them. */
  TOOLGATE_DRAIN_TIMEOUT_MS: int(0, 600_000, 10_000),
  /** `worker`: plugin code runs in worker processes that can be killed (the default); `none`: in the server's thread, for code you trust. */
  TOOLGATE_TOOL_ISOLATION: z.enum(['worker', 'none']).default('worker'),
  /** Old-generation heap of one plugin worker process; a tool that allocates past it fails with TOOL_FAILED and its worker is replaced. */
  TOOLGATE_WORKER_HEAP_MB: int(16, 16_384, DEFAULT_WORKER_OPTIONS.heapMb),
  /** Workers per plugin package version and tenant (each runs one call at a time; more calls wait for a free worker). */
  TOOLGATE_WORKER_POOL_SIZE: int(1, 256, 4),
  /** Largest result a tool may return (JSON bytes), checked in its worker before it crosses; `limits.maxOutputBytes` may only lower it. */
  TOOLGATE_WORKER_MAX_OUTPUT_BYTES: int(1024, 256 * 1024 * 1024, DEFAULT_WORKER_OPTIONS.maxOutputBytes),
  /** Start a spare worker for every active server tool at boot, so no first call waits for one (`false` for a short-lived process). */
  TOOLGATE_WORKER_WARM_AT_BOOT: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** A tenant's workers of a package that ran nothing for this long are stopped (a later call starts new ones). */
  TOOLGATE_WORKER_IDLE_MS: int(1000, 86_400_000, 300_000),
  /** After a call is aborted, how long its tool may take to stop on its own before the worker is terminated. */
  TOOLGATE_WORKER_KILL_GRACE_MS: int(0, 60_000, DEFAULT_WORKER_OPTIONS.killGraceMs),
  /**
   * Host globs (comma-separated, `*` = any run of characters) that tools with the `net:fetch` scope may connect to from a worker;
   * empty leaves host checks to the plugin (the bundled http plugin has its own TOOLGATE_HTTP_ALLOWLIST). Tools without the scope get no network at all.
   */
  TOOLGATE_WORKER_NET_HOSTS: z.string().default(''),
  TOOLGATE_HEALTH_INTERVAL_MS: int(1000, 86_400_000, 30_000),
  TOOLGATE_HEALTH_TIMEOUT_MS: int(10, 600_000, 5_000),
});
export type ResilienceEnv = z.infer<typeof resilienceEnvSchema>;

export interface ResilienceOptions {
  breaker: { consecutiveFailures: number; halfOpenAfterMs: number; busyRps: number; failureRatio: number; windowMs: number; minTenants: number };
  /** Share of a version's maxConcurrency one tenant may hold when the server serves several tenants. */
  tenantMaxShare: number;
  tenantQueue: number;
  retry: { baseDelayMs: number; maxDelayMs: number };
  bulkheadQueue: number;
  drainTimeoutMs: number;
}

export interface IsolationOptions {
  heapMb: number;
  poolSize: number;
  killGraceMs: number;
  maxOutputBytes: number;
  idleMs: number;
  warmAtBoot: boolean;
  /** Host globs for `net:fetch` tools; empty = no host restriction beyond the plugin's own. */
  netHosts: string[];
  /** How long calls wait for a busy pool before it starts another worker (default `GROW_AFTER_MS`). */
  growAfterMs?: number;
}

export interface HealthOptions {
  intervalMs: number;
  timeoutMs: number;
}

const DEFAULTS = resilienceOptionsFromEnv(resilienceEnvSchema.parse({}));
export const DEFAULT_RESILIENCE_OPTIONS: ResilienceOptions = DEFAULTS.resilience;
export const DEFAULT_ISOLATION_OPTIONS: IsolationOptions = DEFAULTS.worker;
export const DEFAULT_HEALTH_OPTIONS: HealthOptions = DEFAULTS.health;

/** Turns validated env into the options of ResilientToolInvoker, IsolatedToolInvoker and HealthMonitor. */
export function resilienceOptionsFromEnv(env: ResilienceEnv): { isolation: 'worker' | 'none'; resilience: ResilienceOptions; worker: IsolationOptions; health: HealthOptions } {
  return {
    isolation: env.TOOLGATE_TOOL_ISOLATION,
    resilience: {
      breaker: {
        consecutiveFailures: env.TOOLGATE_BREAKER_FAILURES,
        halfOpenAfterMs: env.TOOLGATE_BREAKER_HALF_OPEN_AFTER_MS,
        busyRps: env.TOOLGATE_BREAKER_BUSY_RPS,
        failureRatio: env.TOOLGATE_BREAKER_FAILURE_RATIO,
        windowMs: env.TOOLGATE_BREAKER_WINDOW_MS,
        minTenants: env.TOOLGATE_BREAKER_MIN_TENANTS,
      },
      tenantMaxShare: env.TOOLGATE_TENANT_MAX_SHARE,
      tenantQueue: env.TOOLGATE_TENANT_QUEUE,
      retry: { baseDelayMs: env.TOOLGATE_RETRY_BASE_MS, maxDelayMs: Math.max(env.TOOLGATE_RETRY_MAX_MS, env.TOOLGATE_RETRY_BASE_MS) },
      bulkheadQueue: env.TOOLGATE_BULKHEAD_QUEUE,
      drainTimeoutMs: env.TOOLGATE_DRAIN_TIMEOUT_MS,
    },
    worker: {
      heapMb: env.TOOLGATE_WORKER_HEAP_MB,
      poolSize: env.TOOLGATE_WORKER_POOL_SIZE,
      killGraceMs: env.TOOLGATE_WORKER_KILL_GRACE_MS,
      maxOutputBytes: env.TOOLGATE_WORKER_MAX_OUTPUT_BYTES,
      idleMs: env.TOOLGATE_WORKER_IDLE_MS,
      warmAtBoot: env.TOOLGATE_WORKER_WARM_AT_BOOT,
      netHosts: env.TOOLGATE_WORKER_NET_HOSTS.split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    },
    health: { intervalMs: env.TOOLGATE_HEALTH_INTERVAL_MS, timeoutMs: env.TOOLGATE_HEALTH_TIMEOUT_MS },
  };
}
