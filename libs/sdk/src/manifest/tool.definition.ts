import type { ToolDefinition, ToolLimits, ToolManifest } from './manifest.types';

export const DEFAULT_LIMITS: Readonly<ToolLimits> = Object.freeze({
  timeoutMs: 10_000,
  maxConcurrency: 8,
  retries: 0,
  idempotent: false,
});

/**
 * Declares a tool. Fills the optional fields with defaults; validation happens when the host loads
 * the plugin (`validateManifest`), so a mistake is reported with the field that caused it.
 */
export function defineTool<Args = Record<string, unknown>, Output = unknown>(definition: ToolDefinition<Args, Output>): ToolManifest<Args, Output> {
  return {
    ...definition,
    category: definition.category ?? [],
    tags: definition.tags ?? [],
    examples: definition.examples ?? [],
    execution: definition.execution ?? 'server',
    limits: { ...DEFAULT_LIMITS, ...definition.limits },
  };
}
