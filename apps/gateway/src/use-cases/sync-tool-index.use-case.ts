import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CatalogService } from '@toolgate/registry';
import { buildToolDocument, ToolIndex } from '@toolgate/retrieval';
import { concatMap, type Subscription } from 'rxjs';

/** Keeps the tool index equal to the catalog's active versions; runs after every catalog change. */
@Injectable()
export class SyncToolIndexUseCase implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('IndexSync');
  private subscription?: Subscription;
  private synced = false;

  constructor(
    private readonly catalog: CatalogService,
    private readonly index: ToolIndex,
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
    const wanted = new Set(docs.map((d) => d.id));
    const stale = (await this.index.ids()).filter((id) => !wanted.has(id));
    await this.index.upsert(docs);
    await this.index.remove(stale);
    this.synced = true;
    this.logger.log({ indexed: docs.length, removed: stale.length, driver: this.index.driver }, 'tool index synced');
    return { indexed: docs.length, removed: stale.length };
  }
}
