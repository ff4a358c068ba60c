import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import type { CatalogService, ToolView, UsageExampleService } from '@toolgate/registry';
import { createRetriever, type ToolRetriever } from '@toolgate/retrieval';
import { Subject } from 'rxjs';
import { SyncToolIndexUseCase } from './sync-tool-index.use-case';

const tool = (id: string): ToolView =>
  ({
    id,
    active: {
      version: '1.0.0',
      descriptor: {
        name: id.split('/')[1],
        title: id,
        description: `the ${id} tool`,
        category: [],
        tags: [],
        inputSchema: { type: 'object' },
        examples: [],
        permissions: { scopes: [], risk: 'read' },
      },
    },
  }) as unknown as ToolView;

async function setup() {
  const changes = new Subject<void>();
  const tools = [tool('units/convert')];
  const catalog = { changes$: changes.asObservable(), activeTools: () => tools, notifyChanged: () => changes.next() };
  const usage = { examplesFor: async () => new Map(), learnedFor: async () => new Map() };
  const retriever: ToolRetriever = await createRetriever({ driver: 'embedded', embedder: 'none', reranker: 'none' });
  const sync = new SyncToolIndexUseCase(catalog as unknown as CatalogService, usage as unknown as UsageExampleService, retriever);
  // Each sync waits on a gate of its own, so the test decides when it finishes.
  const gates: (() => void)[] = [];
  const indexTools = retriever.indexTools.bind(retriever);
  const started = jest.spyOn(retriever, 'indexTools').mockImplementation(async (docs) => {
    await new Promise<void>((open) => gates.push(open));
    return indexTools(docs);
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  // A follow-up sync starts after a gap (at least 100 ms): wait for it, up to 3 s.
  const syncs = async (count: number) => {
    for (let waited = 0; started.mock.calls.length < count && waited < 3000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return started.mock.calls.length;
  };
  return { changes, tools, sync, retriever, started, gates, settle, syncs };
}

describe('SyncToolIndexUseCase', () => {
  beforeAll(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));

  it('coalesces the changes that arrive during a sync into one more sync after a gap, which sees the latest catalog', async () => {
    const { changes, tools, sync, retriever, started, gates, settle, syncs } = await setup();
    sync.onModuleInit();
    changes.next();
    await settle();
    expect(started).toHaveBeenCalledTimes(1);
    // A burst of learning runs while the first sync is still indexing.
    for (let i = 0; i < 30; i++) changes.next();
    tools.push(tool('currency/convert'));
    gates.shift()?.();
    await settle();
    await settle();
    // Not at once: the follow-up waits out the gap, gathering what comes meanwhile.
    expect(started).toHaveBeenCalledTimes(1);
    changes.next();
    expect(await syncs(2)).toBe(2);
    gates.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started).toHaveBeenCalledTimes(2);
    expect((await retriever.index.ids()).sort()).toEqual(['currency/convert', 'units/convert']);
    // Quiet again: the next change syncs at once.
    changes.next();
    await settle();
    expect(started).toHaveBeenCalledTimes(3);
    gates.shift()?.();
    await sync.onModuleDestroy();
    expect(sync.ready).toBe(true);
  });

  it("syncs outside the context of the request whose change set it off (its logs and spans are not that caller's)", async () => {
    const { changes, sync, started, gates, settle, syncs } = await setup();
    const request = new AsyncLocalStorage<{ requestId: string }>();
    const seen: unknown[] = [];
    const held = started.getMockImplementation();
    started.mockImplementation(async (docs) => {
      seen.push(request.getStore());
      return held?.(docs);
    });
    sync.onModuleInit();
    request.run({ requestId: 'runTask-1' }, () => changes.next());
    await settle();
    request.run({ requestId: 'runTask-2' }, () => changes.next());
    gates.shift()?.();
    expect(await syncs(2)).toBe(2);
    gates.shift()?.();
    await sync.onModuleDestroy();
    expect(seen).toEqual([undefined, undefined]);
  });

  it('keeps following after a failed sync, and retries it', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const { changes, sync, started, gates, settle } = await setup();
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      started.mockRejectedValueOnce(new Error('index down'));
      sync.onModuleInit();
      changes.next();
      await settle();
      await settle();
      expect(started).toHaveBeenCalledTimes(1);
      expect(sync.ready).toBe(false);
      jest.advanceTimersByTime(5_000);
      await settle();
      expect(started).toHaveBeenCalledTimes(2);
      gates.shift()?.();
      await settle();
      await settle();
      expect(sync.ready).toBe(true);
      await sync.onModuleDestroy();
    } finally {
      jest.useRealTimers();
    }
  });
});
