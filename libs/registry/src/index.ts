export { AccessPolicyService } from './access/access-policy.service';
export type { Principal } from './access/policy.types';
export { type AppendContext, type PendingApprovals, RETENTION_BATCH, RunAuditService, type RunOwnership } from './audit/run-audit.service';
export { CatalogService } from './catalog/catalog.service';
export type { PluginLoadReport, PluginView, ToolVersionView, ToolView, VersionStateScope } from './catalog/catalog.types';
export { EmbeddingCacheService } from './embeddings/embedding-cache.service';
export { scanDescriptor } from './integrity/descriptor.scanner';
export { IntegrityRule } from './integrity/integrity.types';
export { openDataSource } from './persistence/data-source.factory';
export { DatabaseChanges, type RunEventNotice } from './persistence/database.changes';
export { type PluginCode, PluginStatus } from './persistence/plugin.entity';
export { ToolVersionState } from './persistence/tool-version.entity';
export { natsOptionsFromEnv, type RegistryEnv, registryEnvSchema, registryOptionsFromEnv } from './registry.config';
export { RegistryModule } from './registry.module';
export type { DatabaseOptions, RegistryModuleOptions } from './registry.module-definition';
export { SessionStoreService } from './sessions/session-store.service';
export { type McpCallOptions, type McpCallResult, McpConnections, type McpServerState, type McpServerStatus } from './sources/mcp/mcp.connections';
export { describeTarget, type McpServerConfig, parseMcpServers } from './sources/mcp/mcp-servers.config';
export { CONTENT_OUTPUT_SCHEMA } from './sources/mcp/mcp-tool.mapper';
export { discoverPluginPackages } from './sources/npm/plugin.discovery';
export { type Installed, type InstallOptions, installPlugin, listInstalledPlugins, uninstallPlugin } from './sources/npm/plugin.installer';
export { isCodeStandIn, loadPlugin, loadPlugins, type PluginLoadResult } from './sources/npm/plugin.loader';
export type { InstallRecord } from './sources/npm/plugin-install.record';
export type { GuardedServerNats } from './sources/remote/guarded-nats.server';
export { catalogDigest, loadNatsTransport, type NatsOptions, natsConnectOptions, RemoteWorkers, type RemoteWorkersOptions } from './sources/remote/remote.workers';
export {
  acceptedSchema,
  callRoute,
  callSchema,
  cancelSchema,
  firstIssue,
  type RemoteCall,
  type RemoteReply,
  subjectsOf,
  type WorkerAnnouncement,
  type WorkerHeartbeat,
} from './sources/remote/remote-worker.protocol';
export { ToolSource } from './sources/tool-source.port';
export { DEFAULT_USAGE_EXAMPLE_BOUNDS, type UsageExampleBounds, UsageExampleService } from './usage/usage-example.service';
