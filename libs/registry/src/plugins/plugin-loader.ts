import { isAbsolute, relative, resolve } from 'node:path';
import { type ErrorDetail, ErrorCode, namespaceOfPackage, type PluginPackageJson, parsePluginPackageJson, type ToolManifest, ToolgateError, validateManifest } from '@toolgate/sdk';
import type { DiscoveredPackage } from './plugin-discovery';

export interface LoadedPlugin {
  ok: true;
  dir: string;
  packageJson: PluginPackageJson;
  namespace: string;
  tools: ToolManifest[];
}

export interface FailedPlugin {
  ok: false;
  dir: string;
  /** Present when package.json itself was valid, so the failure can be recorded against (package, version). */
  packageJson?: PluginPackageJson;
  error: ToolgateError;
}

export type PluginLoadResult = LoadedPlugin | FailedPlugin;

const fail = (dir: string, error: ToolgateError, packageJson?: PluginPackageJson): FailedPlugin => ({ ok: false, dir, error, packageJson });

/** Drops the plugin's modules from the require cache so a reload sees the files as they are now. */
function forgetModules(dir: string): void {
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(dir) && !key.slice(dir.length).includes('node_modules')) delete require.cache[key];
  }
}

/** Loads one discovered package: checks package.json and the sdk range, imports the entry, validates every tool. */
export function loadPlugin(discovered: DiscoveredPackage, hostSdkVersion?: string): PluginLoadResult {
  const { dir } = discovered;
  let packageJson: PluginPackageJson;
  try {
    packageJson = parsePluginPackageJson(discovered.packageJson, hostSdkVersion);
  } catch (error) {
    return fail(dir, error as ToolgateError);
  }

  const entry = resolve(dir, packageJson.toolgate.tools);
  const inside = relative(dir, entry);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `entry ${packageJson.toolgate.tools} lies outside the package`, [{ path: '/toolgate/tools', message: 'must stay inside the package folder' }]), packageJson);
  }

  let exported: unknown;
  try {
    forgetModules(dir);
    // Plugins are CommonJS packages resolved at run time; a static import cannot name them.
    const mod = require(entry) as Record<string, unknown>;
    exported = mod.tools ?? mod.default;
  } catch (error) {
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `importing ${packageJson.name}@${packageJson.version} failed: ${(error as Error).message}`, [{ path: '/toolgate/tools', message: 'the entry module threw on import' }], { cause: error }), packageJson);
  }
  if (!Array.isArray(exported) || exported.length === 0) {
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name} exports no tools`, [{ path: '/tools', message: 'the entry must export `tools`, a non-empty array of defineTool(...) results' }]), packageJson);
  }

  const issues: ErrorDetail[] = [];
  const names = new Map<string, number>();
  exported.forEach((manifest, i) => {
    issues.push(...validateManifest(manifest, `/tools/${i}`));
    const name = (manifest as { name?: unknown })?.name;
    if (typeof name === 'string') {
      const first = names.get(name);
      if (first !== undefined) issues.push({ path: `/tools/${i}/name`, message: `duplicate tool name "${name}" (also /tools/${first})` });
      else names.set(name, i);
    }
  });
  if (issues.length > 0) {
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name}@${packageJson.version} has invalid tools`, issues), packageJson);
  }
  return { ok: true, dir, packageJson, namespace: namespaceOfPackage(packageJson.name), tools: exported as ToolManifest[] };
}
