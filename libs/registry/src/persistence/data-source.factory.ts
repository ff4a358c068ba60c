import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseOptions } from '../registry.module-definition';
import { ApiKeyEntity } from './api-key.entity';
import { ApprovalEntity } from './approval.entity';
import { PostgresEmbeddingCacheEntity, SqliteEmbeddingCacheEntity } from './embedding-cache.entity';
import { InitialCatalog1764460800000 } from './migrations/1764460800000-initial-catalog.migration';
import { ToolUsageExamples1796002800000 } from './migrations/1796002800000-tool-usage-examples.migration';
import { PlanningSessions1796089200000 } from './migrations/1796089200000-planning-sessions.migration';
import { RunAudit1796175600000 } from './migrations/1796175600000-run-audit.migration';
import { ToolIntegrity1796262000000 } from './migrations/1796262000000-tool-integrity.migration';
import { EmbeddingCache1796348400000 } from './migrations/1796348400000-embedding-cache.migration';
import { RunRecovery1796434800000 } from './migrations/1796434800000-run-recovery.migration';
import { TenantScopedLearning1796900000000 } from './migrations/1796900000000-tenant-scoped-learning.migration';
import { TenantToolState1796950000000 } from './migrations/1796950000000-tenant-tool-state.migration';
import { PluginCode1797000000000 } from './migrations/1797000000000-plugin-code.migration';
import { AttemptCodeHash1797100000000 } from './migrations/1797100000000-attempt-code-hash.migration';
import { UsageExamplesByTenant1797200000000 } from './migrations/1797200000000-usage-examples-by-tenant.migration';
import { PlanningSessionEntity } from './planning-session.entity';
import { PluginEntity } from './plugin.entity';
import { RoleEntity } from './role.entity';
import { RunEntity } from './run.entity';
import { RunEventEntity } from './run-event.entity';
import { RunStepEntity } from './run-step.entity';
import { StepAttemptEntity } from './step-attempt.entity';
import { TenantToolStateEntity } from './tenant-tool-state.entity';
import { ToolUsageExampleEntity } from './tool-usage-example.entity';
import { ToolVersionEntity } from './tool-version.entity';

/** The entities of both drivers; each driver adds its own `embeddingCacheEntity`. */
export const REGISTRY_ENTITIES = [
  PluginEntity,
  ToolVersionEntity,
  RoleEntity,
  ApiKeyEntity,
  ToolUsageExampleEntity,
  PlanningSessionEntity,
  RunEntity,
  RunStepEntity,
  StepAttemptEntity,
  RunEventEntity,
  ApprovalEntity,
  TenantToolStateEntity,
];
export const REGISTRY_MIGRATIONS = [
  InitialCatalog1764460800000,
  ToolUsageExamples1796002800000,
  PlanningSessions1796089200000,
  RunAudit1796175600000,
  ToolIntegrity1796262000000,
  EmbeddingCache1796348400000,
  RunRecovery1796434800000,
  TenantScopedLearning1796900000000,
  TenantToolState1796950000000,
  PluginCode1797000000000,
  AttemptCodeHash1797100000000,
  UsageExamplesByTenant1797200000000,
];

/** Binary columns are named per driver (`blob`, `bytea`), so the embedding cache has one entity each. */
export const embeddingCacheEntity = (type: DatabaseOptions['type']) => (type === 'postgres' ? PostgresEmbeddingCacheEntity : SqliteEmbeddingCacheEntity);

/** Schema changes go through migrations on both drivers; `synchronize` is never on. */
export function dataSourceOptions(database: DatabaseOptions): DataSourceOptions {
  const entities: NonNullable<DataSourceOptions['entities']> = [...REGISTRY_ENTITIES, embeddingCacheEntity(database.type)];
  const common = { entities, migrations: REGISTRY_MIGRATIONS, migrationsTableName: 'toolgate_migrations', synchronize: false, migrationsRun: false } as const;
  if (database.type === 'postgres') return { ...common, type: 'postgres', url: database.url, applicationName: 'toolgate' };
  if (database.path !== ':memory:') mkdirSync(dirname(database.path), { recursive: true });
  return { ...common, type: 'better-sqlite3', database: database.path, enableWAL: database.path !== ':memory:' };
}

/** Opens the database and applies pending migrations. */
export async function openDataSource(database: DatabaseOptions): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(database));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}
