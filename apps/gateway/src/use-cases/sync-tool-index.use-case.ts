import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CatalogService } from '@toolgate/registry';
import { buildToolDocument, ToolRetriever } from '@toolgate/retrieval';
import { concatMap, type Subscription } from 'rxjs';

/** Keeps the tool index equal to the catalog's active versions; runs after every catalog change. */
@Injectable()
export class SyncToolIndexUseCase implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('IndexSync');
  private subscription?: Subscription;
  private synced = false;

  constructor(
    private readonly catalog: CatalogService,
    private readonly retriever: ToolRetriever,
  ) {}

  onModuleInit(): void {
    this.subscription = this.catalog.changes$.pipe(concatMap(() => this.execute())).subscribe({
      error: (error: unknown) => this.logger.error({ err: error }, 'index sync failed'),
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** True once the index reflects the catalog at least once. */
  get ready(): boolean {
    return this.synced;
  }

  async execute(): Promise<{ indexed: number; removed: number }> {
    const tools = this.catalog.activeTools();
    const docs = tools.flatMap((t) => (t.active ? [buildToolDocument(t.id, t.active.version, t.active.descriptor)] : []));
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
    this.logger.log({ indexed: docs.length, removed: stale.length, driver: index.driver, embedder: this.retriever.model }, 'tool index synced');
    return { indexed: docs.length, removed: stale.length };
  }
}
