import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { ToolVersionState } from './persistence/tool-version.entity';
import type { McpLimits } from './sources/mcp/mcp.connections';
import type { ImportLimits } from './sources/npm/plugin.importer';
import type { RemoteWorkersOptions } from './sources/remote/remote.workers';
import type { UsageExampleBounds } from './usage/usage-example.service';

export type DatabaseOptions = { type: 'sqlite'; path: string } | { type: 'postgres'; url: string };

export interface RegistryModuleOptions {
  database: DatabaseOptions;
  /** Folders holding plugin packages (each child, and each child of an `@scope` folder, is tried). */
  pluginDirs: string[];
  /** `toolgate dev` only: a descriptor edited without a version bump replaces the pinned one at once instead of holding the version for approval. */
  followDescriptorEdits?: boolean;
  /** Where `toolgate plugins install` keeps one folder per package version; null: none. */
  pluginInstallDir?: string | null;
  /** Policy file (roles and API keys); null means none: local single-user mode. */
  policyFile: string | null;
  /** State of a newly seen version of a tool that already has versions. */
  newVersionState: ToolVersionState;
  /** Conversation state bounds; defaults: 64 KiB per session, forgotten after 7 idle days. */
  sessions?: { maxBytes: number; ttlMs: number };
  /** Bounds on importing one plugin package (its own process); defaults: 10 s, 256 MB heap, 8 MiB of manifests. */
  pluginImport?: ImportLimits;
  /** Where successful plugin imports are kept by what they read (see PluginImportCache); null or unset: every load imports. */
  pluginImportCache?: string | null;
  /** Bounds on MCP server connections; defaults in DEFAULT_MCP_LIMITS. */
  mcp?: McpLimits;
  /** Usage examples kept per scope (the platform's, each tenant's); defaults in DEFAULT_USAGE_EXAMPLE_BOUNDS. */
  usageExamples?: UsageExampleBounds;
  /** Remote tool workers over NATS; null or unset: none (no NATS connection). */
  remote?: RemoteWorkersOptions | null;
}

export const {
  ConfigurableModuleClass: RegistryConfigurableModule,
  MODULE_OPTIONS_TOKEN: REGISTRY_OPTIONS,
  OPTIONS_TYPE: REGISTRY_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: REGISTRY_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RegistryModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
