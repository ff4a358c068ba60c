import { ErrorCode, type RunStatus, type ToolgateError } from '@toolgate/sdk';
import { Counter, Gauge, Histogram } from 'prom-client';
import { isToolFault } from '../resilience/failure.classifier';

/**
 * Prometheus instruments of the runtime, registered once per process in prom-client's default
 * registry (served at /metrics by the gateway). Labels are bounded: tool ids and versions of the
 * catalog, tenants of the policy file, and the enums below; never a message, a run id or an argument.
 */

/**
 * What became of one tool call, for rates an operator can alert on:
 * - `succeeded`;
 * - `tool_error`: the tool or its upstream failed (TIMEOUT, TOOL_FAILED, UNAVAILABLE — an unhealthy tool too —, INTERNAL): what a failure-rate alert counts;
 * - `refused`: not called at all (breaker open, bulkhead or fair share full);
 * - `cancelled`: the caller or a shutdown stopped it;
 * - `caller_error`: the call itself was wrong (arguments, permissions, output too large).
 */
export type CallOutcome = 'succeeded' | 'tool_error' | 'refused' | 'cancelled' | 'caller_error';

const REFUSED = new Set<ErrorCode>([ErrorCode.CIRCUIT_OPEN, ErrorCode.OVERLOADED]);

export function callOutcome(error?: ToolgateError): CallOutcome {
  if (!error) return 'succeeded';
  if (REFUSED.has(error.code)) return 'refused';
  if (error.code === ErrorCode.CANCELLED || error.code === ErrorCode.INTERRUPTED) return 'cancelled';
  return isToolFault(error) ? 'tool_error' : 'caller_error';
}

export const toolCalls = new Counter({
  name: 'toolgate_tool_calls_total',
  help: 'Tool calls (one per tool version a step called, its fallback included) by tool, version, tenant, outcome and error type (the error code).',
  labelNames: ['tool', 'version', 'tenant', 'outcome', 'error_type'] as const,
});

export const toolCallSeconds = new Histogram({
  name: 'toolgate_tool_call_duration_seconds',
  help: 'Duration of tool calls, retries and their waits included, by tool, version and outcome.',
  labelNames: ['tool', 'version', 'outcome'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
});

export const toolAttempts = new Counter({
  name: 'toolgate_tool_attempts_total',
  help: 'Attempts of tool calls (a retried call has several) by tool, version and result (succeeded, failed).',
  labelNames: ['tool', 'version', 'result'] as const,
});

export const toolRetries = new Counter({
  name: 'toolgate_tool_retries_total',
  help: 'Attempts after the first of a tool call (retries), by tool and version.',
  labelNames: ['tool', 'version'] as const,
});

export const breakerState = new Gauge({
  name: 'toolgate_breaker_state',
  help: 'Circuit breaker state per tool version and tenant (tenant "*" is the shared, tool-wide breaker): 0 closed, 1 half-open, 2 open.',
  labelNames: ['tool', 'version', 'tenant'] as const,
});

export const breakerOpens = new Counter({
  name: 'toolgate_breaker_opens_total',
  help: 'Times a circuit breaker opened, per tool version and tenant (tenant "*" is the shared breaker).',
  labelNames: ['tool', 'version', 'tenant'] as const,
});

export const concurrencyRejections = new Counter({
  name: 'toolgate_bulkhead_rejections_total',
  help: 'Calls refused for load: the tool version\'s bulkhead was full (reason "bulkhead") or the tenant held its fair share with its queue full (reason "tenant_share").',
  labelNames: ['tool', 'version', 'tenant', 'reason'] as const,
});

export const runsFinished = new Counter({
  name: 'toolgate_runs_total',
  help: 'Runs that ended, by final status (SUCCEEDED, FAILED, CANCELLED) and tenant.',
  labelNames: ['status', 'tenant'] as const,
});

export const runSeconds = new Histogram({
  name: 'toolgate_run_duration_seconds',
  help: "Time from a run's start to its end (waits for approval included), by final status.",
  labelNames: ['status'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600],
});

export function recordRunFinished(status: RunStatus, tenant: string, startedAt: string, finishedAt: string): void {
  runsFinished.inc({ status, tenant });
  const seconds = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  if (Number.isFinite(seconds) && seconds >= 0) runSeconds.observe({ status }, seconds);
}
