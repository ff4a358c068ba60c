export { AccessPolicyService, LOCAL_ADMIN, LOCAL_ADMIN_ROLE } from './access/access-policy.service';
export type { Action, ApiKeyDefinition, DiscoveryClause, Grant, PolicySet, Principal, RoleDefinition } from './access/policy.types';
export { ACTIONS } from './access/policy.types';
export { loadPolicyFile, parsePolicyDocument } from './access/policy-file.loader';
export { DEFAULT_RUN_LIST_LIMIT, MAX_RUN_LIST_LIMIT, RunAuditService } from './audit/run-audit.service';
export type {
  ApprovalStatus,
  AuditEvent,
  AuditedApproval,
  AuditedAttempt,
  AuditedRun,
  AuditedStep,
  AuditOwner,
  AuditRunStatus,
  AuditStepError,
  AuditStepStatus,
  RunListFilter,
  SequencedAuditEvent,
} from './audit/run-audit.types';
export { CatalogService } from './catalog/catalog.service';
export type { CatalogFilter, PluginLoadReport, PluginView, ToolVersionView, ToolView } from './catalog/catalog.types';
export { type CachedVector, EmbeddingCacheService } from './embeddings/embedding-cache.service';
export { scanDescriptor, scanText } from './integrity/descriptor.scanner';
export { type IntegrityFinding, IntegrityRule } from './integrity/integrity.types';
export { dataSourceOptions, openDataSource } from './persistence/data-source.factory';
export { PluginStatus } from './persistence/plugin.entity';
export type { UsageExampleSource } from './persistence/tool-usage-example.entity';
export { ToolVersionState } from './persistence/tool-version.entity';
export { discoverPluginPackages } from './plugins/plugin-discovery';
export { loadPlugin, type PluginLoadResult } from './plugins/plugin-loader';
export { type RegistryEnv, registryEnvSchema, registryOptionsFromEnv } from './registry.config';
export { RegistryModule } from './registry.module';
export type { DatabaseOptions, RegistryModuleOptions } from './registry.module-definition';
export { SESSION_ID_PATTERN, type SessionOwner, SessionStoreService, sessionIdProblem } from './sessions/session-store.service';
export { USAGE_EXAMPLES_PER_TOOL, type UsageExampleImportResult, UsageExampleService, type UsageExampleView } from './usage/usage-example.service';
