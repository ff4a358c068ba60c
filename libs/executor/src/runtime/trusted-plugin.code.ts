import { createRequire } from 'node:module';
import { type CatalogService, isCodeStandIn } from '@toolgate/registry';
import { descriptorHash, ErrorCode, parseToolRef, ToolgateError, type ToolManifest } from '@toolgate/sdk';
import { pluginEntry } from '@toolgate/sdk/sandbox';

/** What it needs of the catalog: a version's manifest and its package folder. CatalogService fits. */
export type TrustedCodeLookup = Pick<CatalogService, 'manifest'> & Partial<Pick<CatalogService, 'packageDir'>>;

/**
 * A tool version's real code in this process, for isolation `none` (code the operator trusts): the
 * catalog holds only descriptors, imported in a process of their own, so the module is required here
 * on first use, afresh when the catalog pins a changed descriptor, and refused when the code on disk
 * no longer matches what the catalog pinned.
 */
export class TrustedPluginCode {
  private readonly loaded = new Map<string, { pinned: ToolManifest; code: ToolManifest }>();

  constructor(private readonly catalog: TrustedCodeLookup) {}

  manifest(toolId: string, version: string): ToolManifest | undefined {
    const pinned = this.catalog.manifest(toolId, version);
    // A catalog built in code (tests, embedders) holds the functions themselves.
    if (!pinned || (!isCodeStandIn(pinned.run) && !isCodeStandIn(pinned.healthCheck))) return pinned;
    const key = `${toolId}@${version}`;
    const cached = this.loaded.get(key);
    if (cached?.pinned === pinned) return cached.code;
    const dir = this.catalog.packageDir?.(toolId, version);
    if (!dir) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${key} has no package folder`);
    const { entry } = pluginEntry(dir, key);
    const nodeRequire = createRequire(entry);
    // A changed pin means new code on disk: drop the package's own modules (not its dependencies).
    for (const path of Object.keys(nodeRequire.cache)) if (path.startsWith(dir) && !path.slice(dir.length).includes('node_modules')) delete nodeRequire.cache[path];
    const mod = nodeRequire(entry) as { tools?: ToolManifest[]; default?: ToolManifest[] };
    const name = parseToolRef(toolId).name;
    const code = (mod.tools ?? mod.default ?? []).find((m) => m.name === name);
    if (!code) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `the plugin no longer exports a tool "${name}"`);
    if (descriptorHash(code) !== descriptorHash(pinned)) throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `tool ${key} changed on disk since it was loaded (descriptor hash differs); reload plugins`);
    this.loaded.set(key, { pinned, code });
    return code;
  }
}
