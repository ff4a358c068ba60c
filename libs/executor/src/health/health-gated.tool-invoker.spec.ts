import { ErrorCode } from '@toolgate/sdk';
import { type AttemptReport, type Invocation, ToolInvoker } from '../runtime/tool-invoker.port';
import { HealthGatedToolInvoker } from './health-gated.tool-invoker';

class CountingInvoker extends ToolInvoker {
  calls = 0;
  async invoke(): Promise<unknown> {
    this.calls++;
    return { ok: true };
  }
}

const invocation = (reports: AttemptReport[]): Invocation => ({
  toolId: 'x/probe',
  version: '1.0.0',
  arguments: {},
  principal: { tenant: 'acme', subject: 'alice' },
  runId: 'r1',
  stepId: 's1',
  attempt: 1,
  callId: 'c1',
  idempotencyKey: 'k1',
  signal: new AbortController().signal,
  onAttempt: (report) => void reports.push(report),
});

describe('HealthGatedToolInvoker', () => {
  it('does not call an unhealthy version (UNAVAILABLE, no attempt reported: the runner audits it as one) and calls it again once healthy', async () => {
    const inner = new CountingInvoker();
    let healthy = false;
    const gated = new HealthGatedToolInvoker(inner, { isHealthy: () => healthy });
    const reports: AttemptReport[] = [];
    await expect(gated.invoke(invocation(reports))).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(inner.calls).toBe(0);
    // The audited FAILED attempt: test/integration/executor-runner.int-spec.ts ('audits a call the health gate refuses ...').
    expect(reports).toEqual([]);
    healthy = true;
    await expect(gated.invoke(invocation([]))).resolves.toEqual({ ok: true });
    expect(inner.calls).toBe(1);
  });
});
