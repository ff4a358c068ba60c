import { Logger } from '@nestjs/common';
import { RunEventBus } from '@toolgate/executor';
import type { ToolGraph } from '@toolgate/planner';
import type { CatalogService, UsageExampleService } from '@toolgate/registry';
import type { Run, RunStep } from '@toolgate/sdk';
import { RunLearningSubscriber } from './run-learning.subscriber';

const at = '2025-01-01T00:00:00.000Z';
const step = (id: string, tool: string, status: RunStep['status'], startedAt: string | null = at): RunStep => ({ id, tool, status, attempts: 1, dependsOn: [], startedAt, durationMs: 1 });
const run = (id: string, status: Run['status'], steps: RunStep[], task?: string): Run => ({
  id,
  status,
  traceId: '0'.repeat(32),
  planId: 'plan',
  owner: { tenant: 'acme', subject: 'alice' },
  ...(task ? { task } : {}),
  steps,
  replans: 0,
  startedAt: at,
  finishedAt: null,
});

function setup(record: (toolId: string, text: string) => Promise<boolean> = async () => true) {
  const bus = new RunEventBus();
  const usage = { record: jest.fn(record) };
  const catalog = { notifyChanged: jest.fn() };
  const graph = { observe: jest.fn() };
  const subscriber = new RunLearningSubscriber(bus, usage as unknown as UsageExampleService, catalog as unknown as CatalogService, graph as unknown as ToolGraph);
  subscriber.onModuleInit();
  let seq = 0;
  const play = (runId: string, task: string | undefined, steps: RunStep[], status: Run['status'] = 'SUCCEEDED') => {
    bus.publish(++seq, { type: 'RUN_STARTED', at, run: run(runId, 'RUNNING', [], task) });
    for (const s of steps) bus.publish(++seq, { type: 'STEP_FINISHED', at, runId, step: s });
    bus.publish(++seq, { type: 'RUN_FINISHED', at, run: run(runId, status, steps, task) });
  };
  return { bus, usage, catalog, graph, subscriber, play };
}

describe('RunLearningSubscriber', () => {
  it('records the task as a usage example of each SUCCEEDED step only, and re-syncs the index once', async () => {
    const { usage, catalog, subscriber, play } = setup();
    play('r1', 'convert 5 miles to kilometers', [
      step('a', 'units/convert@1.0.0', 'SUCCEEDED', '2025-01-01T00:00:01.000Z'),
      step('b', 'calculator/evaluate@1.0.0', 'FAILED'),
      step('c', 'text/echo@2.0.0', 'FALLBACK'),
      step('d', 'table/group-by@1.1.0', 'SKIPPED', null),
      step('e', 'calculator/evaluate@1.0.0', 'SUCCEEDED', '2025-01-01T00:00:02.000Z'),
    ]);
    await subscriber.settled('r1');
    expect(usage.record.mock.calls).toEqual([
      ['units/convert', 'convert 5 miles to kilometers', 'acme'],
      ['calculator/evaluate', 'convert 5 miles to kilometers', 'acme'],
    ]);
    expect(catalog.notifyChanged).toHaveBeenCalledTimes(1);
  });

  it('teaches the tool graph the order of a successful run, and nothing from a failed one', async () => {
    const { graph, subscriber, play } = setup();
    const second = step('b', 'calculator/evaluate@1.0.0', 'SUCCEEDED', '2025-01-01T00:00:02.000Z');
    const first = step('a', 'units/convert@1.0.0', 'SUCCEEDED', '2025-01-01T00:00:01.000Z');
    play('ok', 'convert and double', [second, first]);
    play('failed', 'convert and double', [first, second, step('c', 'text/echo@1.0.0', 'FAILED')], 'FAILED');
    await Promise.all([subscriber.settled('ok'), subscriber.settled('failed')]);
    expect(graph.observe.mock.calls).toEqual([[[first, second], 'acme']]);
  });

  it('learns nothing from a run without task text (a plan the caller wrote)', async () => {
    const { usage, catalog, graph, subscriber, play } = setup();
    play('plan', undefined, [step('a', 'units/convert@1.0.0', 'SUCCEEDED'), step('b', 'calculator/evaluate@1.0.0', 'SUCCEEDED')]);
    await subscriber.settled('plan');
    expect(usage.record).not.toHaveBeenCalled();
    expect(catalog.notifyChanged).not.toHaveBeenCalled();
    expect(graph.observe).not.toHaveBeenCalled();
  });

  it('does not re-sync when nothing new was learned, and a failed record is only logged', async () => {
    const { catalog, subscriber, play } = setup(async (toolId) => {
      if (toolId === 'units/convert') throw new Error('query too long');
      return false;
    });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    play('r2', 'again', [step('a', 'units/convert@1.0.0', 'SUCCEEDED'), step('b', 'calculator/evaluate@1.0.0', 'SUCCEEDED')]);
    await expect(subscriber.settled('r2')).resolves.toBeUndefined();
    expect(catalog.notifyChanged).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ runId: 'r2', tool: 'units/convert' }), 'recording a usage example failed');
    warn.mockRestore();
  });

  it('settles a run only once its examples are stored', async () => {
    let store: (learned: boolean) => void = () => undefined;
    const { bus, catalog, subscriber } = setup(() => new Promise<boolean>((resolve) => (store = resolve)));
    bus.publish(1, { type: 'RUN_STARTED', at, run: run('r3', 'RUNNING', [], 'slow task') });
    bus.publish(2, { type: 'STEP_FINISHED', at, runId: 'r3', step: step('a', 'units/convert@1.0.0', 'SUCCEEDED') });
    let settled = false;
    const settling = subscriber.settled('r3').then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    store(true);
    await settling;
    bus.publish(3, { type: 'RUN_FINISHED', at, run: run('r3', 'SUCCEEDED', [], 'slow task') });
    await subscriber.settled('r3');
    expect(catalog.notifyChanged).toHaveBeenCalledTimes(1);
  });

  it('stops listening when the module is destroyed', async () => {
    const { usage, subscriber, play } = setup();
    subscriber.onModuleDestroy();
    play('late', 'too late', [step('a', 'units/convert@1.0.0', 'SUCCEEDED')]);
    await subscriber.settled('late');
    expect(usage.record).not.toHaveBeenCalled();
  });
});
