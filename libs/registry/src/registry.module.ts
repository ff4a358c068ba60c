import { Inject, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessPolicyService } from './access/access-policy.service';
import { RunAuditService } from './audit/run-audit.service';
import { CatalogService } from './catalog/catalog.service';
import { EmbeddingCacheService } from './embeddings/embedding-cache.service';
import { openDataSource } from './persistence/data-source.factory';
import { DatabaseChanges } from './persistence/database.changes';
import { REGISTRY_OPTIONS, RegistryConfigurableModule, type RegistryModuleOptions } from './registry.module-definition';
import { SessionStoreService } from './sessions/session-store.service';
import { McpConnections } from './sources/mcp/mcp.connections';
import { RemoteWorkers } from './sources/remote/remote.workers';
import type { ToolSource } from './sources/tool-source.port';
import { TOOL_SOURCE_LIST, TOOL_SOURCES } from './sources/tool-sources.list';
import { UsageExampleService } from './usage/usage-example.service';

/**
 * Catalog, tool sources (TOOL_SOURCES) and access policies over TypeORM (SQLite file by default, PostgreSQL by URL).
 * On start it applies migrations, loads the policy file and loads every plugin; a bad plugin is skipped.
 */
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [REGISTRY_OPTIONS],
      useFactory: (options: RegistryModuleOptions) => openDataSource(options.database),
    },
    DatabaseChanges,
    McpConnections,
    RemoteWorkers,
    ...TOOL_SOURCES,
    { provide: TOOL_SOURCE_LIST, inject: [...TOOL_SOURCES], useFactory: (...sources: ToolSource[]) => sources },
    AccessPolicyService,
    CatalogService,
    UsageExampleService,
    SessionStoreService,
    RunAuditService,
    EmbeddingCacheService,
  ],
  exports: [DataSource, DatabaseChanges, AccessPolicyService, CatalogService, McpConnections, RemoteWorkers, UsageExampleService, SessionStoreService, RunAuditService, EmbeddingCacheService],
})
export class RegistryModule extends RegistryConfigurableModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Registry');

  constructor(
    private readonly dataSource: DataSource,
    private readonly access: AccessPolicyService,
    private readonly catalog: CatalogService,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    this.logger.log({ database: this.options.database.type, pluginDirs: this.options.pluginDirs, policyFile: this.options.policyFile }, 'registry starting');
    await this.access.reload();
    await this.catalog.loadPlugins();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
