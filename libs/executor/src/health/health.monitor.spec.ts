import type { ToolView } from '@toolgate/registry';
import { Subject } from 'rxjs';
import { HealthMonitor } from './health.monitor';
import { type HealthVerdict, ToolHealthProbe } from './tool-health.probe';

type Script = (signal: AbortSignal) => Promise<HealthVerdict | undefined>;

class ScriptedProbe extends ToolHealthProbe {
  readonly checks: string[] = [];
  constructor(readonly scripts: Record<string, Script>) {
    super();
  }
  check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    this.checks.push(`${toolId}@${version}`);
    return this.scripts[`${toolId}@${version}`](signal);
  }
}

const tool = (id: string, versions: string[]) => ({ id, versions: versions.map((version) => ({ version, loaded: true })) }) as unknown as ToolView;
const targets = { activeTools: () => [tool('x/api', ['1.0.0', '2.0.0']), tool('x/plain', ['1.0.0']), tool('x/slow', ['1.0.0'])], changes$: new Subject<void>() };

describe('HealthMonitor', () => {
  let apiHealthy = true;
  let slowChecks = 0;
  const probe = new ScriptedProbe({
    'x/api@1.0.0': async () => (apiHealthy ? { healthy: true } : { healthy: false, detail: 'upstream 503' }),
    'x/api@2.0.0': async () => ({ healthy: true }),
    'x/plain@1.0.0': async () => undefined,
    // Ignores its signal entirely: the monitor must still give up at the timeout.
    'x/slow@1.0.0': () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ healthy: true }), 5_000);
        slowChecks++;
        timer.unref();
      }),
  });

  it('marks a failing version unhealthy with its detail, leaves others and versions without checks healthy, and returns it when it recovers', async () => {
    const monitor = new HealthMonitor(targets, probe, { intervalMs: 60_000, timeoutMs: 50 });
    const emitted: string[][] = [];
    const subscription = monitor.unhealthy$.subscribe((set) => emitted.push([...set].sort()));

    apiHealthy = false;
    await monitor.checkAll();
    expect(monitor.isHealthy('x/api', '1.0.0')).toBe(false);
    expect(monitor.isHealthy('x/api', '2.0.0')).toBe(true);
    expect(monitor.isHealthy('x/plain', '1.0.0')).toBe(true);
    expect(monitor.isHealthy('x/slow', '1.0.0')).toBe(false);
    expect(monitor.snapshot().find((h) => h.toolId === 'x/api' && h.version === '1.0.0')).toMatchObject({ healthy: false, detail: 'upstream 503', failures: 1 });
    expect(monitor.snapshot().find((h) => h.toolId === 'x/slow')).toMatchObject({ healthy: false, detail: 'health check did not answer within 50 ms' });

    apiHealthy = true;
    await monitor.checkAll();
    expect(monitor.isHealthy('x/api', '1.0.0')).toBe(true);
    expect(emitted).toEqual([[], ['x/api@1.0.0', 'x/slow@1.0.0'], ['x/slow@1.0.0']]);
    subscription.unsubscribe();
    await monitor.stop();
    expect(slowChecks).toBe(2);
  });

  it('runs on its schedule with an unref’d timer, never overlaps rounds, and stops cleanly', async () => {
    const counting = new ScriptedProbe({ ...probe.scripts, 'x/slow@1.0.0': async () => ({ healthy: true }) });
    const monitor = new HealthMonitor(targets, counting, { intervalMs: 20, timeoutMs: 50 });
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    monitor.start();
    monitor.start();
    await new Promise((resolve) => setTimeout(resolve, 110));
    await monitor.stop();
    const rounds = counting.checks.filter((c) => c === 'x/api@2.0.0').length;
    expect(rounds).toBeGreaterThanOrEqual(2);
    const after = counting.checks.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(counting.checks.length).toBe(after);
    // A round's check deadline may still be due on a loaded machine: give it up to a second to fire.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    for (let waited = 0; waited < 1000 && timers() > timersBefore; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timers()).toBeLessThanOrEqual(timersBefore);
  });

  it('checks again as soon as the catalog changes, also when the change lands during a round, not at the next tick', async () => {
    const changes$ = new Subject<void>();
    let healthy = false;
    let release: () => void = () => undefined;
    const gate = new ScriptedProbe({
      'x/api@1.0.0': () => new Promise((resolve) => (release = () => resolve({ healthy }))),
    });
    const monitor = new HealthMonitor({ activeTools: () => [tool('x/api', ['1.0.0'])], changes$ }, gate, { intervalMs: 3_600_000, timeoutMs: 5_000 });
    monitor.start();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(monitor.isHealthy('x/api', '1.0.0')).toBe(false);

    healthy = true;
    changes$.next();
    expect(gate.checks).toHaveLength(2);
    // A change during that round: its answer may predate the change, so one more round follows.
    changes$.next();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.checks).toHaveLength(3);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(monitor.isHealthy('x/api', '1.0.0')).toBe(true);
    await monitor.stop();
    changes$.next();
    expect(gate.checks).toHaveLength(3);
  });
});
