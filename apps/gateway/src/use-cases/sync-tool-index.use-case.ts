import { AsyncResource } from 'node:async_hooks';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { CatalogService, UsageExampleService } from '@toolgate/registry';
import { buildToolDocument, ToolRetriever, withLearnedQueries, withUsageQueries } from '@toolgate/retrieval';
import type { Subscription } from 'rxjs';

const RETRY_MS = 5_000;
/** The least time between a sync and the one that follows it for changes made meanwhile. */
const SYNC_GAP_MS = 100;

/**
 * `follow`: sync after every catalog change (the server). `on-demand`: only when `execute` is called
 * (the CLI: one command, then exit; a command that never searches never syncs).
 */
export type IndexSyncMode = 'follow' | 'on-demand';
export const INDEX_SYNC_MODE = Symbol('INDEX_SYNC_MODE');

/**
 * Keeps the tool index equal to the catalog's active versions and their usage examples; runs after every
 * catalog change. Changes that arrive while a sync runs are coalesced into one more sync after it: every
 * sync reads the whole current state, so at most one sync runs and one waits, however many runs learn;
 * the one that waits starts after a gap as long as the last sync took.
 */
@Injectable()
export class SyncToolIndexUseCase implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('IndexSync');
  private subscription?: Subscription;
  private running: Promise<unknown> = Promise.resolve();
  /** A sync is in flight (follow mode). */
  private syncing = false;
  /** A change arrived during the sync in flight: one more sync follows it. */
  private changedSince = false;
  private synced = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly catalog: CatalogService,
    private readonly usage: UsageExampleService,
    private readonly retriever: ToolRetriever,
    @Optional() @Inject(INDEX_SYNC_MODE) private readonly mode: IndexSyncMode = 'follow',
  ) {}

  onModuleInit(): void {
    if (this.mode === 'on-demand') return;
    // Syncs run in the context of the server's start, not of the request whose change set one off: its
    // log lines and spans are the index's, not that caller's (the request id, the trace of its runTask).
    const own = new AsyncResource('toolgate.index-sync');
    this.subscription = this.catalog.changes$.subscribe(() => own.runInAsyncScope(() => this.follow()));
  }

  private follow(): void {
    if (this.syncing) {
      this.changedSince = true;
      return;
    }
    this.syncing = true;
    this.running = (async () => {
      for (;;) {
        this.changedSince = false;
        const started = performance.now();
        await this.execute().catch((error: unknown) => {
          // A failed sync (index down) is logged and retried until the index is back; following goes on.
          this.logger.error({ err: error }, `index sync failed; retrying in ${RETRY_MS / 1000} s`);
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.catalog.notifyChanged(), RETRY_MS).unref();
        });
        if (!this.changedSince || !this.subscription || this.subscription.closed) break;
        // Under a steady stream of learning runs, syncs take at most about half the event loop: the next
        // waits as long as the last took (at least SYNC_GAP_MS), gathering the changes meanwhile.
        await new Promise((resolve) => setTimeout(resolve, Math.max(SYNC_GAP_MS, performance.now() - started)).unref());
        if (this.subscription.closed) break;
      }
      this.syncing = false;
    })();
  }

  /** Lets a sync in flight finish: the index and the database close right after this. */
  async onModuleDestroy(): Promise<void> {
    this.subscription?.unsubscribe();
    clearTimeout(this.retry);
    await this.running.catch(() => undefined);
  }

  /** True once the index reflects the catalog at least once. */
  get ready(): boolean {
    return this.synced;
  }

  async execute(): Promise<{ indexed: number; removed: number }> {
    const started = performance.now();
    const tools = this.catalog.activeTools();
    const ids = tools.map((t) => t.id);
    const [examples, learned] = await Promise.all([this.usage.examplesFor(ids), this.usage.learnedFor(ids)]);
    // Platform-wide examples join the shared text; each tenant's learned ones stay that tenant's (the index keeps them apart).
    const docs = tools.flatMap((t) =>
      t.active ? [withLearnedQueries(withUsageQueries(buildToolDocument(t.id, t.active.version, t.active.descriptor), examples.get(t.id) ?? []), learned.get(t.id) ?? new Map())] : [],
    );
    const { index } = this.retriever;
    if (await this.retriever.needsReindex()) {
      // Vectors of another model are never mixed with this one's: start the index over.
      this.logger.warn({ stored: await index.embeddingModel(), embedder: this.retriever.model }, 'embedding model changed: reindexing every tool');
      await index.remove(await index.ids());
    }
    const wanted = new Set(docs.map((d) => d.id));
    const stale = (await index.ids()).filter((id) => !wanted.has(id));
    await this.retriever.indexTools(docs);
    await index.remove(stale);
    this.synced = true;
    this.logger.log({ indexed: docs.length, removed: stale.length, driver: index.driver, embedder: this.retriever.model, durationMs: Math.round(performance.now() - started) }, 'tool index synced');
    return { indexed: docs.length, removed: stale.length };
  }
}
