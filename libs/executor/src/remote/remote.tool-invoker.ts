import { context, propagation, trace } from '@opentelemetry/api';
import type { CatalogService, RemoteWorkers } from '@toolgate/registry';
import { descriptorHash, ErrorCode, ToolgateError, type ToolManifest } from '@toolgate/sdk';
import type { HealthVerdict, ToolHealthProbe } from '../health/tool-health.probe';
import { type Invocation, ToolInvoker } from '../runtime/tool-invoker.port';

/** A call without a run deadline still ends: the worker aborts it after an hour, like an MCP call. */
const UNBOUNDED_CALL_MS = 3_600_000;

/**
 * Calls `remote` tools on the workers that announced them (see RemoteWorkers): addressed by the
 * descriptor hash the catalog pinned, so only a worker hosting exactly that descriptor answers.
 * Timeouts, retries, the breaker and fallbacks are the resilience layer's, as for any tool; the
 * invocation's signal (an attempt's timeout, a cancelled run) reaches the worker as a cancel.
 */
export class RemoteToolInvoker extends ToolInvoker implements ToolHealthProbe {
  private readonly hashes = new WeakMap<ToolManifest, string>();

  constructor(
    private readonly catalog: Pick<CatalogService, 'manifest'>,
    private readonly workers: RemoteWorkers,
  ) {
    super();
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    const carrier: Record<string, string> = {};
    const span = trace.getActiveSpan();
    if (span) propagation.inject(trace.setSpan(context.active(), span), carrier);
    return this.workers.call(
      {
        callId: `${invocation.callId}:${invocation.attempt}`,
        toolId: invocation.toolId,
        version: invocation.version,
        hash: this.pinnedHash(invocation.toolId, invocation.version),
        arguments: invocation.arguments,
        principal: { tenant: invocation.principal.tenant, subject: invocation.principal.subject },
        idempotencyKey: invocation.idempotencyKey,
        runId: invocation.runId,
        stepId: invocation.stepId,
        attempt: invocation.attempt,
        deadlineAt: invocation.deadlineAt ?? Date.now() + UNBOUNDED_CALL_MS,
        ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
      },
      invocation.signal,
    );
  }

  /** Healthy while a live worker hosts the pinned descriptor; the workers run the tool's own health check. */
  async check(toolId: string, version: string): Promise<HealthVerdict> {
    const live = this.workers.liveWorkers(toolId, version, this.pinnedHash(toolId, version));
    if (live.length === 0) return { healthy: false, detail: 'no live worker hosts this version' };
    return { healthy: true, detail: `${live.length} worker${live.length === 1 ? '' : 's'}: ${live.map((w) => w.workerId).join(', ')}` };
  }

  private pinnedHash(toolId: string, version: string): string {
    const manifest = this.catalog.manifest(toolId, version);
    if (!manifest) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${toolId}@${version} is not loaded`);
    let hash = this.hashes.get(manifest);
    if (!hash) {
      hash = descriptorHash(manifest);
      this.hashes.set(manifest, hash);
    }
    return hash;
  }
}
