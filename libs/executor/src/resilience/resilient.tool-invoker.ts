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
import { breakerOpens, breakerState, concurrencyRejections } from '../telemetry/executor.instruments';
import { AdaptiveBreaker, type BreakerMode } from './adaptive.breaker';
import { isToolFault, isTransient, provesNotStarted } from './failure.classifier';
import { linkedSignal, unboundedListeners } from './linked-signal.util';
import { DEFAULT_RESILIENCE_OPTIONS, type ResilienceOptions } from './resilience.config';

export type BreakerStateName = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

type LastFailure = { code: ErrorCode; message: string; at: string } | null;

/**
 * One tool version as one tenant sees it, for GraphQL: its own breaker, failures and load, and the
 * shared (tool-wide) state. Failure messages are the tenant's own, never another tenant's.
 */
export interface BreakerSnapshot {
  toolId: string;
  version: string;
  /** What this tenant's calls get now: its own breaker's state, or OPEN while the shared breaker is open. */
  state: BreakerStateName;
  /** The tool-wide breaker: OPEN while enough tenants' own breakers are open (see ResilientToolInvoker). */
  shared: 'OPEN' | 'CLOSED';
  /** Which verdict opens this tenant's breaker now: consecutive failures (quiet tool) or failure ratio (busy tool). */
  mode: BreakerMode;
  consecutiveFailures: number;
  /** This tenant's failed attempts since the policy was built. */
  failures: number;
  /** This tenant's last failure counted against the tool. */
  lastFailure: LastFailure;
  /** This tenant's calls in flight, and how many it may hold at once (its fair share). */
  inFlight: number;
  tenantLimit: number;
  maxConcurrency: number;
}

/** One tool version across tenants, for operators and `/health/ready`: states and counts, no failure messages. */
export interface SharedBreakerSnapshot {
  toolId: string;
  version: string;
  /** OPEN refuses every tenant; it opens only while `openTenants` reaches TOOLGATE_BREAKER_MIN_TENANTS. */
  state: 'OPEN' | 'CLOSED';
  /** Tenants whose own breaker for this version is open now. */
  openTenants: number;
  /** Failed attempts of all tenants since the policy was built. */
  failures: number;
  inFlight: number;
  maxConcurrency: number;
}

/** A breaker state change: `tenant` is null for the shared breaker. */
export interface BreakerChange {
  toolId: string;
  version: string;
  tenant: string | null;
  state: BreakerStateName;
}

/**
 * What the invoker needs of the catalog: a version's manifest (for its limits) and how many tenants
 * the server serves (fair shares apply only with more than one). CatalogService fits.
 */
export type ToolManifestLookup = Pick<CatalogService, 'manifest'> & Partial<Pick<CatalogService, 'tenantCount'>>;

/** One tenant's breaker and load on one tool version. */
interface TenantPolicy {
  tenant: string;
  breaker: CircuitBreakerPolicy;
  breakerModel: AdaptiveBreaker;
  failures: number;
  lastFailure: LastFailure;
  /** When its breaker last opened (or re-opened after a failed probe); undefined while closed. */
  openedAt: number | undefined;
  inFlight: number;
  /** Calls of this tenant waiting for one of its own slots, first come first served. */
  waiting: (() => void)[];
}

interface ToolPolicy {
  toolId: string;
  version: string;
  limits: ToolLimits;
  bulkhead: BulkheadPolicy;
  timeout: TimeoutPolicy;
  tenants: Map<string, TenantPolicy>;
  /** The shared state last reported, to emit its changes once. */
  sharedOpen: boolean;
}

/** The tenant label of the shared (tool-wide) breaker in metrics. */
const SHARED_TENANT = '*';

const STATE_VALUES: Record<BreakerStateName, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

function recordBreaker(policy: { toolId: string; version: string }, tenant: string, state: BreakerStateName): void {
  const labels = { tool: policy.toolId, version: policy.version, tenant };
  breakerState.set(labels, STATE_VALUES[state]);
  if (state === 'OPEN') breakerOpens.inc(labels);
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
 * Tenancy — a tenant can only ever shut a tool off or starve it for itself:
 * - Breakers are per (tool@version, tenant). Only failures of the tool or its upstream count
 *   (`isToolFault`: TIMEOUT, TOOL_FAILED, UNAVAILABLE, INTERNAL); the caller's own errors
 *   (INVALID_ARGUMENTS, FORBIDDEN, OUTPUT_TOO_LARGE, a tool's typed caller error) never do. A TIMEOUT
 *   or TOOL_FAILED only one caller's input causes cannot be told apart from an outage by its code,
 *   so it opens that tenant's breaker only.
 * - The shared (tool-wide) breaker is derived, not counted: the version is refused to every tenant
 *   (CIRCUIT_OPEN) while at least `breaker.minTenants` tenants' own breakers are open, each opened or
 *   re-opened after a failed probe within `breaker.windowMs`. Tenants whose own breaker is open keep
 *   probing through it, so the shared state lifts as soon as the tool serves them again (or when their
 *   openings age out of the window). A failing health check stops a version for everyone separately
 *   (HealthGatedToolInvoker).
 * - Fair share: on a server with more than one tenant, a tenant may hold at most
 *   max(1, ceil(maxConcurrency × tenantMaxShare)) of a version's slots; its excess waits for the
 *   tenant's own slots (up to TOOLGATE_TENANT_QUEUE calls, bounded by the caller's deadline), so the
 *   rest of the bulkhead stays free for other tenants. A single-tenant server uses the whole bulkhead.
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
  /** Every call in flight listens on it (each removes its listener when done). */
  private readonly shutdown = unboundedListeners(new AbortController());
  private closing = false;
  private readonly changed = new Subject<BreakerChange>();
  /** Emits whenever a tenant's breaker, or a version's shared state, changes. */
  readonly breakerChanges$: Observable<BreakerChange> = this.changed.asObservable();

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

  /** One version as `tenant` sees it (its own failures only); undefined before the version's first call. */
  breakerState(toolId: string, version: string, tenant: string): BreakerSnapshot | undefined {
    const policy = this.policies.get(`${toolId}@${version}`);
    return policy && this.tenantSnapshot(policy, tenant);
  }

  /** Every tool version called so far (policies are built on first call), as `tenant` sees it. */
  tenantStates(tenant: string): BreakerSnapshot[] {
    return [...this.policies.values()].map((p) => this.tenantSnapshot(p, tenant));
  }

  /** Every tool version called so far across tenants: states and counts, no failure messages. */
  states(): SharedBreakerSnapshot[] {
    return [...this.policies.values()].map((policy) => {
      const tenants = [...policy.tenants.values()];
      return {
        toolId: policy.toolId,
        version: policy.version,
        state: this.sharedOpen(policy) ? 'OPEN' : 'CLOSED',
        openTenants: tenants.filter((t) => t.breaker.state !== CircuitState.Closed).length,
        failures: tenants.reduce((sum, t) => sum + t.failures, 0),
        inFlight: policy.limits.maxConcurrency - policy.bulkhead.executionSlots,
        maxConcurrency: policy.limits.maxConcurrency,
      };
    });
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
    const tenant = this.tenantPolicy(policy, invocation.principal.tenant);
    const tool = `${policy.toolId}@${policy.version}`;
    const limit = this.tenantLimit(policy);
    const { signal, dispose } = linkedSignal([invocation.signal, this.shutdown.signal]);
    try {
      await this.tenantSlot(policy, tenant, limit, signal);
    } catch (error) {
      dispose();
      await invocation.onAttempt?.({ attempt: invocation.attempt, outcome: 'FAILED', error: stepErrorOf(error as ToolgateError), durationMs: 0 });
      throw error;
    }
    try {
      return await policy.bulkhead.execute(() => this.attempts(policy, tenant, invocation, signal), signal);
    } catch (raw) {
      if (!(raw instanceof BulkheadRejectedError) && !(raw instanceof TaskCancelledError)) throw raw;
      if (raw instanceof BulkheadRejectedError) concurrencyRejections.inc({ tool: policy.toolId, version: policy.version, tenant: tenant.tenant, reason: 'bulkhead' });
      const error =
        raw instanceof BulkheadRejectedError
          ? new ToolgateError(ErrorCode.OVERLOADED, `${tool} is at its concurrency limit (${policy.limits.maxConcurrency}); call refused`, [], { cause: raw })
          : this.cancelled(tool, signal);
      await invocation.onAttempt?.({ attempt: invocation.attempt, outcome: 'FAILED', error: stepErrorOf(error), durationMs: 0 });
      throw error;
    } finally {
      // The slot passes straight to the tenant's next waiting call, so no newcomer can slip in between.
      const next = tenant.waiting.shift();
      if (next) next();
      else tenant.inFlight--;
      dispose();
    }
  }

  private async attempts(policy: ToolPolicy, tenant: TenantPolicy, invocation: Invocation, signal: AbortSignal): Promise<unknown> {
    const tool = `${policy.toolId}@${policy.version}`;
    const maxAttempts = 1 + policy.limits.retries;
    const backoffFactory = new ExponentialBackoff({ initialDelay: this.options.retry.baseDelayMs, maxDelay: this.options.retry.maxDelayMs, generator: decorrelatedJitterGenerator });
    let backoff: IBackoff<unknown> | undefined;
    for (let tried = 0; ; tried++) {
      const attempt = invocation.attempt + tried;
      const started = performance.now();
      try {
        if (signal.aborted) throw this.cancelled(tool, signal);
        const output = await this.attemptOnce(policy, tenant, { ...invocation, attempt }, signal);
        await invocation.onAttempt?.({ attempt, outcome: 'SUCCEEDED', durationMs: performance.now() - started });
        return output;
      } catch (raw) {
        const error = this.typed(raw, policy, tenant, signal);
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

  /**
   * One try: the shared state first (a tenant whose own breaker is closed is refused while the tool is
   * failing for several tenants), then the tenant's breaker outside and the timeout inside, so the
   * breaker counts the attempt's typed outcome.
   */
  private attemptOnce(policy: ToolPolicy, tenant: TenantPolicy, invocation: Invocation, signal: AbortSignal): Promise<unknown> {
    if (tenant.breaker.state === CircuitState.Closed && this.sharedOpen(policy)) {
      return Promise.reject(new ToolgateError(ErrorCode.CIRCUIT_OPEN, `${policy.toolId}@${policy.version} is failing for several tenants (shared circuit open); not called`));
    }
    return tenant.breaker.execute(async () => {
      try {
        // Start-up and waiting for a worker are bounded by the caller's signal, not the tool's timeout.
        await this.inner.prepare(invocation, signal);
        return await policy.timeout.execute(({ signal: attemptSignal }) => this.inner.invoke({ ...invocation, signal: attemptSignal, onAttempt: undefined }), signal);
      } catch (raw) {
        throw this.typed(raw, policy, tenant, signal);
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

  private typed(raw: unknown, policy: ToolPolicy, tenant: TenantPolicy, signal: AbortSignal): ToolgateError {
    const tool = `${policy.toolId}@${policy.version}`;
    if (ToolgateError.is(raw)) return raw;
    if (raw instanceof BrokenCircuitError || raw instanceof IsolatedCircuitError) {
      // The tenant's own last failure only: another tenant's messages never reach this caller.
      const last = tenant.lastFailure;
      return new ToolgateError(ErrorCode.CIRCUIT_OPEN, `${tool} is failing for tenant ${tenant.tenant} (circuit open${last ? `; last failure ${last.code}: ${last.message}` : ''}); not called`, [], {
        cause: raw,
      });
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

  /**
   * Takes one of the tenant's slots, waiting (bounded by the caller's signal) while the tenant holds
   * its whole share: a tenant's excess slows only that tenant. Past TOOLGATE_TENANT_QUEUE waiting calls
   * the excess is OVERLOADED.
   */
  private async tenantSlot(policy: ToolPolicy, tenant: TenantPolicy, limit: number, signal: AbortSignal): Promise<void> {
    const tool = `${policy.toolId}@${policy.version}`;
    const { maxConcurrency } = policy.limits;
    // A tenant entitled to the whole bulkhead meets the bulkhead's own rule (TOOLGATE_BULKHEAD_QUEUE) instead.
    if (tenant.inFlight < limit || limit >= maxConcurrency) {
      tenant.inFlight++;
      return;
    }
    if (tenant.waiting.length >= this.options.tenantQueue) {
      concurrencyRejections.inc({ tool: policy.toolId, version: policy.version, tenant: tenant.tenant, reason: 'tenant_share' });
      throw new ToolgateError(
        ErrorCode.OVERLOADED,
        `${tool}: tenant ${tenant.tenant} holds its fair share (${limit}, TOOLGATE_TENANT_MAX_SHARE) and ${tenant.waiting.length} more calls wait (TOOLGATE_TENANT_QUEUE); call refused`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        tenant.waiting.splice(tenant.waiting.indexOf(granted), 1);
        reject(this.cancelled(tool, signal));
      };
      if (signal.aborted) return reject(this.cancelled(tool, signal));
      signal.addEventListener('abort', onAbort, { once: true });
      tenant.waiting.push(granted);
    });
  }

  /** Slots one tenant may hold: its fair share when the server serves several tenants, else the whole bulkhead. */
  private tenantLimit(policy: ToolPolicy): number {
    const max = policy.limits.maxConcurrency;
    if ((this.manifests.tenantCount?.() ?? 1) <= 1) return max;
    return Math.min(max, Math.max(1, Math.ceil(max * this.options.tenantMaxShare)));
  }

  /** Open for every tenant while enough tenants' own breakers opened recently (see the class comment). */
  private sharedOpen(policy: ToolPolicy, now = Date.now()): boolean {
    let open = 0;
    for (const t of policy.tenants.values()) {
      if (t.openedAt !== undefined && t.breaker.state !== CircuitState.Closed && now - t.openedAt <= this.options.breaker.windowMs) open++;
    }
    const shared = open >= this.options.breaker.minTenants;
    if (shared !== policy.sharedOpen) {
      policy.sharedOpen = shared;
      recordBreaker(policy, SHARED_TENANT, shared ? 'OPEN' : 'CLOSED');
      const key = `${policy.toolId}@${policy.version}`;
      this.logger[shared ? 'warn' : 'log']({ tool: key, state: shared ? 'OPEN' : 'CLOSED', openTenants: open }, 'shared circuit breaker changed state');
      this.changed.next({ toolId: policy.toolId, version: policy.version, tenant: null, state: shared ? 'OPEN' : 'CLOSED' });
    }
    return shared;
  }

  private policyFor(toolId: string, version: string): ToolPolicy {
    const key = `${toolId}@${version}`;
    const existing = this.policies.get(key);
    if (existing) return existing;
    const manifest = this.manifests.manifest(toolId, version);
    if (!manifest) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${key} is not loaded`);
    const { limits } = manifest;
    const policy: ToolPolicy = {
      toolId,
      version,
      limits,
      bulkhead: bulkhead(limits.maxConcurrency, this.options.bulkheadQueue),
      timeout: timeout(limits.timeoutMs, TimeoutStrategy.Aggressive),
      tenants: new Map(),
      sharedOpen: false,
    };
    this.policies.set(key, policy);
    return policy;
  }

  private tenantPolicy(policy: ToolPolicy, tenant: string): TenantPolicy {
    const existing = policy.tenants.get(tenant);
    if (existing) return existing;
    const breakerModel = new AdaptiveBreaker(this.options.breaker);
    const state: TenantPolicy = {
      tenant,
      breaker: circuitBreaker(handleWhen(isToolFault), { breaker: breakerModel, halfOpenAfter: this.options.breaker.halfOpenAfterMs }),
      breakerModel,
      failures: 0,
      lastFailure: null,
      openedAt: undefined,
      inFlight: 0,
      waiting: [],
    };
    const key = `${policy.toolId}@${policy.version}`;
    state.breaker.onFailure(({ reason, handled }) => {
      if (!handled || !('error' in reason)) return;
      const error = toToolgateError(reason.error);
      state.failures++;
      state.lastFailure = { code: error.code, message: error.message, at: new Date().toISOString() };
    });
    state.breaker.onStateChange((next) => {
      recordBreaker(policy, tenant, STATE_NAMES[next]);
      if (next === CircuitState.Open) state.openedAt = Date.now();
      if (next === CircuitState.Closed) state.openedAt = undefined;
      this.logger[next === CircuitState.Closed ? 'log' : 'warn']({ tool: key, tenant, state: STATE_NAMES[next], lastFailure: state.lastFailure }, 'circuit breaker changed state');
      this.changed.next({ toolId: policy.toolId, version: policy.version, tenant, state: STATE_NAMES[next] });
      this.sharedOpen(policy);
    });
    policy.tenants.set(tenant, state);
    return state;
  }

  private tenantSnapshot(policy: ToolPolicy, tenant: string): BreakerSnapshot {
    const own = policy.tenants.get(tenant);
    const shared = this.sharedOpen(policy);
    const ownState = own ? STATE_NAMES[own.breaker.state] : 'CLOSED';
    return {
      toolId: policy.toolId,
      version: policy.version,
      state: ownState === 'CLOSED' && shared ? 'OPEN' : ownState,
      shared: shared ? 'OPEN' : 'CLOSED',
      mode: own?.breakerModel.mode ?? 'consecutive',
      consecutiveFailures: own?.breakerModel.consecutiveFailures ?? 0,
      failures: own?.failures ?? 0,
      lastFailure: own?.lastFailure ?? null,
      inFlight: own?.inFlight ?? 0,
      tenantLimit: this.tenantLimit(policy),
      maxConcurrency: policy.limits.maxConcurrency,
    };
  }
}
