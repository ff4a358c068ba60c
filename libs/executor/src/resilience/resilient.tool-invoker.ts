import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { CatalogService } from '@toolgate/registry';
import { ErrorCode, ToolgateError, type ToolLimits } from '@toolgate/sdk';
import {
  BrokenCircuitError,
  type BulkheadPolicy,
  BulkheadRejectedError,
  bulkhead,
  type CircuitBreakerPolicy,
  CircuitState,
  circuitBreaker,
  decorrelatedJitterGenerator,
  ExponentialBackoff,
  handleWhen,
  type IBackoff,
  IsolatedCircuitError,
  TaskCancelledError,
  type TimeoutPolicy,
  TimeoutStrategy,
  timeout,
} from 'cockatiel';
import { type Observable, Subject } from 'rxjs';
import { abortError, stepErrorOf, toToolgateError } from '../runtime/tool.errors';
import { type Invocation, type PreparedCall, ToolInvoker } from '../runtime/tool-invoker.port';
import { AdaptiveBreaker, type BreakerMode } from './adaptive.breaker';
import { isToolFault, isTransient, provesNotStarted } from './failure.classifier';
import { linkedSignal } from './linked-signal.util';
import { DEFAULT_RESILIENCE_OPTIONS, type ResilienceOptions } from './resilience.config';

export type BreakerStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** One tool version's breaker and load, for GraphQL and `/health/ready`. */
export interface BreakerSnapshot {
  toolId: string;
  version: string;
  state: BreakerStateName;
  /** Which verdict opens it now: consecutive failures (quiet tool) or failure ratio (busy tool). */
  mode: BreakerMode;
  consecutiveFailures: number;
  /** Failed attempts since the policy was built. */
  failures: number;
  lastFailure: { code: ErrorCode; message: string; at: string } | null;
  inFlight: number;
  maxConcurrency: number;
}

/** What the invoker needs of the catalog: a version's manifest (for its limits). CatalogService fits. */
export type ToolManifestLookup = Pick<CatalogService, 'manifest'>;

interface ToolPolicy {
  toolId: string;
  version: string;
  limits: ToolLimits;
  bulkhead: BulkheadPolicy;
  breaker: CircuitBreakerPolicy;
  breakerModel: AdaptiveBreaker;
  timeout: TimeoutPolicy;
  failures: number;
  lastFailure: BreakerSnapshot['lastFailure'];
}

const STATE_NAMES: Record<CircuitState, BreakerStateName> = {
  [CircuitState.Closed]: 'CLOSED',
  [CircuitState.Open]: 'OPEN',
  [CircuitState.HalfOpen]: 'HALF_OPEN',
  [CircuitState.Isolated]: 'OPEN',
};

/**
 * Decorates a ToolInvoker with per-`tool@version` policies built once from the manifest's limits:
 * bulkhead (maxConcurrency, excess rejected with OVERLOADED), then up to 1 + retries attempts, each
 * through the circuit breaker (CIRCUIT_OPEN without calling the tool) and a per-attempt timeout that
 * aborts the attempt's signal (TIMEOUT; an isolating inner invoker then stops the work).
 *
 * Retries happen only for transient failures (TIMEOUT, UNAVAILABLE, network, TOOL_FAILED marked
 * transient) and, for a tool that is not idempotent, only when the failure proves the call never
 * started. Every try, including one refused by the bulkhead or breaker, is reported to
 * `invocation.onAttempt`: this is the one layer that reports attempts (the inner invoker is not handed
 * `onAttempt`), so every try is audited exactly once.
 *
 * The retry loop is written here rather than with cockatiel's RetryPolicy because that policy's
 * backoff sleep ignores the caller's signal: a cancelled call would wait out the delay.
 */
export class ResilientToolInvoker extends ToolInvoker implements OnApplicationShutdown {
  private readonly logger = new Logger('Resilience');
  private readonly policies = new Map<string, ToolPolicy>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();
  private closing = false;
  private readonly changed = new Subject<BreakerSnapshot>();
  /** Emits a version's snapshot whenever its breaker changes state. */
  readonly breakerChanges$: Observable<BreakerSnapshot> = this.changed.asObservable();

  constructor(
    private readonly inner: ToolInvoker,
    private readonly manifests: ToolManifestLookup,
    private readonly options: ResilienceOptions = DEFAULT_RESILIENCE_OPTIONS,
  ) {
    super();
  }

  override prepare(call: PreparedCall, signal: AbortSignal): Promise<void> {
    return this.inner.prepare(call, signal);
  }

  override release(call: PreparedCall): void {
    this.inner.release(call);
  }

  invoke(invocation: Invocation): Promise<unknown> {
    if (this.closing) return Promise.reject(new ToolgateError(ErrorCode.UNAVAILABLE, 'the executor is shutting down; no new tool calls are accepted'));
    const call = this.guarded(invocation);
    this.inFlight.add(call);
    const forget = () => this.inFlight.delete(call);
    call.then(forget, forget);
    return call;
  }

  breakerState(toolId: string, version: string): BreakerSnapshot | undefined {
    const policy = this.policies.get(`${toolId}@${version}`);
    return policy && this.snapshot(policy);
  }

  /** Every tool version called so far (policies are built on first call). */
  states(): BreakerSnapshot[] {
    return [...this.policies.values()].map((p) => this.snapshot(p));
  }

  /**
   * Stops accepting calls, waits up to `timeoutMs` for the ones in flight, then cancels the rest
   * (their signals abort; they end with CANCELLED) and waits for them to settle.
   */
  async drain(timeoutMs = this.options.drainTimeoutMs): Promise<{ drained: number; cancelled: number }> {
    this.closing = true;
    const pending = [...this.inFlight];
    const deadline = new AbortController();
    const allSettled = Promise.allSettled(pending);
    await Promise.race([allSettled, sleep(timeoutMs, undefined, { signal: deadline.signal }).catch(() => undefined)]);
    deadline.abort();
    const cancelled = pending.filter((p) => this.inFlight.has(p)).length;
    if (cancelled > 0) {
      this.shutdown.abort(new ToolgateError(ErrorCode.CANCELLED, 'the executor shut down before the call finished'));
      await allSettled;
    }
    this.logger.log({ drained: pending.length - cancelled, cancelled }, 'tool calls drained');
    return { drained: pending.length - cancelled, cancelled };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private async guarded(invocation: Invocation): Promise<unknown> {
    const policy = this.policyFor(invocation.toolId, invocation.version);
    const { signal, dispose } = linkedSignal([invocation.signal, this.shutdown.signal]);
    const tool = `${policy.toolId}@${policy.version}`;
    try {
      return await policy.bulkhead.execute(() => this.attempts(policy, invocation, signal), signal);
    } catch (raw) {
      if (!(raw instanceof BulkheadRejectedError) && !(raw instanceof TaskCancelledError)) throw raw;
      const error =
        raw instanceof BulkheadRejectedError
          ? new ToolgateError(ErrorCode.OVERLOADED, `${tool} is at its concurrency limit (${policy.limits.maxConcurrency}); call refused`, [], { cause: raw })
          : this.cancelled(tool, signal);
      await invocation.onAttempt?.({ attempt: invocation.attempt, outcome: 'FAILED', error: stepErrorOf(error), durationMs: 0 });
      throw error;
    } finally {
      dispose();
    }
  }

  private async attempts(policy: ToolPolicy, invocation: Invocation, signal: AbortSignal): Promise<unknown> {
    const tool = `${policy.toolId}@${policy.version}`;
    const maxAttempts = 1 + policy.limits.retries;
    const backoffFactory = new ExponentialBackoff({ initialDelay: this.options.retry.baseDelayMs, maxDelay: this.options.retry.maxDelayMs, generator: decorrelatedJitterGenerator });
    let backoff: IBackoff<unknown> | undefined;
    for (let tried = 0; ; tried++) {
      const attempt = invocation.attempt + tried;
      const started = performance.now();
      try {
        if (signal.aborted) throw this.cancelled(tool, signal);
        const output = await this.attemptOnce(policy, { ...invocation, attempt }, signal);
        await invocation.onAttempt?.({ attempt, outcome: 'SUCCEEDED', durationMs: performance.now() - started });
        return output;
      } catch (raw) {
        const error = this.typed(raw, policy, signal);
        await invocation.onAttempt?.({ attempt, outcome: 'FAILED', error: stepErrorOf(error), durationMs: performance.now() - started });
        if (tried + 1 >= maxAttempts || signal.aborted || !this.retryable(error, policy.limits)) throw error;
        backoff = backoff ? backoff.next(undefined) : backoffFactory.next();
        // Retries share the run's deadline: a retry that could not start before it is not made.
        if (invocation.deadlineAt !== undefined && Date.now() + backoff.duration >= invocation.deadlineAt) throw error;
        try {
          await sleep(backoff.duration, undefined, { signal });
        } catch {
          throw this.cancelled(tool, signal);
        }
      }
    }
  }

  /** One try: breaker outside, timeout inside, so the breaker counts the attempt's typed outcome. */
  private attemptOnce(policy: ToolPolicy, invocation: Invocation, signal: AbortSignal): Promise<unknown> {
    return policy.breaker.execute(async () => {
      try {
        // Start-up and waiting for a worker are bounded by the caller's signal, not the tool's timeout.
        await this.inner.prepare(invocation, signal);
        return await policy.timeout.execute(({ signal: attemptSignal }) => this.inner.invoke({ ...invocation, signal: attemptSignal, onAttempt: undefined }), signal);
      } catch (raw) {
        throw this.typed(raw, policy, signal);
      } finally {
        this.inner.release(invocation);
      }
    }, signal);
  }

  private retryable(error: ToolgateError, limits: ToolLimits): boolean {
    if (!isTransient(error)) return false;
    // A timeout or a failure after sending leaves a side effect possible: repeat only calls that are safe twice.
    return limits.idempotent || provesNotStarted(error);
  }

  private typed(raw: unknown, policy: ToolPolicy, signal: AbortSignal): ToolgateError {
    const tool = `${policy.toolId}@${policy.version}`;
    if (ToolgateError.is(raw)) return raw;
    if (raw instanceof BrokenCircuitError || raw instanceof IsolatedCircuitError) {
      const last = policy.lastFailure;
      return new ToolgateError(ErrorCode.CIRCUIT_OPEN, `${tool} is failing (circuit open${last ? `; last failure ${last.code}: ${last.message}` : ''}); not called`, [], { cause: raw });
    }
    if (raw instanceof TaskCancelledError) {
      if (signal.aborted) return this.cancelled(tool, signal);
      return new ToolgateError(ErrorCode.TIMEOUT, `${tool} did not finish within ${policy.limits.timeoutMs} ms`, [], { cause: raw });
    }
    return toToolgateError(raw);
  }

  /** Why the caller's signal (or shutdown) ended the call: CANCELLED, or TIMEOUT when the run's deadline passed. */
  private cancelled(tool: string, signal: AbortSignal): ToolgateError {
    const error = abortError(signal);
    return ToolgateError.is(signal.reason) ? error : new ToolgateError(error.code, `call of ${tool}: ${error.message}`, [], { cause: signal.reason });
  }

  private policyFor(toolId: string, version: string): ToolPolicy {
    const key = `${toolId}@${version}`;
    const existing = this.policies.get(key);
    if (existing) return existing;
    const manifest = this.manifests.manifest(toolId, version);
    if (!manifest) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${key} is not loaded`);
    const { limits } = manifest;
    const breakerModel = new AdaptiveBreaker(this.options.breaker);
    const policy: ToolPolicy = {
      toolId,
      version,
      limits,
      bulkhead: bulkhead(limits.maxConcurrency, this.options.bulkheadQueue),
      breaker: circuitBreaker(handleWhen(isToolFault), { breaker: breakerModel, halfOpenAfter: this.options.breaker.halfOpenAfterMs }),
      breakerModel,
      timeout: timeout(limits.timeoutMs, TimeoutStrategy.Aggressive),
      failures: 0,
      lastFailure: null,
    };
    policy.breaker.onFailure(({ reason, handled }) => {
      if (!handled || !('error' in reason)) return;
      const error = toToolgateError(reason.error);
      policy.failures++;
      policy.lastFailure = { code: error.code, message: error.message, at: new Date().toISOString() };
    });
    policy.breaker.onStateChange((state) => {
      const snapshot = this.snapshot(policy);
      this.logger[state === CircuitState.Closed ? 'log' : 'warn']({ tool: key, state: STATE_NAMES[state], lastFailure: policy.lastFailure }, 'circuit breaker changed state');
      this.changed.next(snapshot);
    });
    this.policies.set(key, policy);
    return policy;
  }

  private snapshot(policy: ToolPolicy): BreakerSnapshot {
    return {
      toolId: policy.toolId,
      version: policy.version,
      state: STATE_NAMES[policy.breaker.state],
      mode: policy.breakerModel.mode,
      consecutiveFailures: policy.breakerModel.consecutiveFailures,
      failures: policy.failures,
      lastFailure: policy.lastFailure,
      inFlight: policy.limits.maxConcurrency - policy.bulkhead.executionSlots,
      maxConcurrency: policy.limits.maxConcurrency,
    };
  }
}
