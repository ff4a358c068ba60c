import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { type Invocation, type PreparedCall, ToolInvoker } from '../runtime/tool-invoker.port';
import type { HealthMonitor } from './health.monitor';

/**
 * Refuses to call a tool version its health check last found unhealthy: UNAVAILABLE without running
 * it, which is what makes the runner use the step's fallback. The version is called again as soon as
 * a check finds it healthy.
 */
export class HealthGatedToolInvoker extends ToolInvoker {
  constructor(
    private readonly inner: ToolInvoker,
    private readonly health: Pick<HealthMonitor, 'isHealthy'>,
  ) {
    super();
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    if (!this.health.isHealthy(invocation.toolId, invocation.version)) {
      // Reports no attempt: the runner audits a call nothing reported an attempt for as one failed attempt.
      throw new ToolgateError(ErrorCode.UNAVAILABLE, `${invocation.toolId}@${invocation.version} is unhealthy (its health check failed); not called`);
    }
    return this.inner.invoke(invocation);
  }

  override prepare(call: PreparedCall, signal: AbortSignal): Promise<void> {
    return this.inner.prepare(call, signal);
  }

  override release(call: PreparedCall): void {
    this.inner.release(call);
  }
}
