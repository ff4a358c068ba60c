import { createRequire } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import {
  ErrorCode,
  type ErrorDetail,
  MAX_TOOLS_PER_PACKAGE,
  namespaceOfPackage,
  type PluginPackageJson,
  parsePluginPackageJson,
  ToolgateError,
  type ToolManifest,
  validateManifest,
} from '@toolgate/sdk';
import semver from 'semver';
import type { DiscoveredPackage } from './plugin.discovery';

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
  /** Present when package.json names a package and a valid version, so the failure can be recorded against them. */
  identity?: { name: string; version: string };
  error: ToolgateError;
}

export type PluginLoadResult = LoadedPlugin | FailedPlugin;

const fail = (dir: string, error: ToolgateError, identity?: { name: string; version: string }): FailedPlugin => ({ ok: false, dir, error, identity });

function identityOf(raw: Record<string, unknown>): { name: string; version: string } | undefined {
  const { name, version } = raw;
  return typeof name === 'string' && typeof version === 'string' && semver.valid(version) ? { name, version } : undefined;
}

/**
 * Imports a plugin's entry with Node's own loader, first dropping the package's modules from its cache
 * so a reload sees the files as they are now.
 */
function importFresh(dir: string, entry: string): Record<string, unknown> {
  const nodeRequire = createRequire(entry);
  for (const key of Object.keys(nodeRequire.cache)) {
    if (key.startsWith(dir) && !key.slice(dir.length).includes('node_modules')) delete nodeRequire.cache[key];
  }
  return nodeRequire(entry) as Record<string, unknown>;
}

/** Loads one discovered package: checks package.json and the sdk range, imports the entry, validates every tool. */
export function loadPlugin(discovered: DiscoveredPackage, hostSdkVersion?: string): PluginLoadResult {
  const { dir } = discovered;
  let packageJson: PluginPackageJson;
  try {
    packageJson = parsePluginPackageJson(discovered.packageJson, hostSdkVersion);
  } catch (error) {
    return fail(dir, error as ToolgateError, identityOf(discovered.packageJson));
  }
  const identity = { name: packageJson.name, version: packageJson.version };

  const entry = resolve(dir, packageJson.toolgate.tools);
  const inside = relative(dir, entry);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    return fail(
      dir,
      new ToolgateError(ErrorCode.PLUGIN_INVALID, `entry ${packageJson.toolgate.tools} lies outside the package`, [{ path: '/toolgate/tools', message: 'must stay inside the package folder' }]),
      identity,
    );
  }

  let exported: unknown;
  try {
    const mod = importFresh(dir, entry);
    exported = mod.tools ?? mod.default;
  } catch (error) {
    return fail(
      dir,
      new ToolgateError(
        ErrorCode.PLUGIN_INVALID,
        `importing ${packageJson.name}@${packageJson.version} failed: ${(error as Error).message}`,
        [{ path: '/toolgate/tools', message: 'the entry module threw on import' }],
        { cause: error },
      ),
      identity,
    );
  }
  if (!Array.isArray(exported) || exported.length === 0) {
    return fail(
      dir,
      new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name} exports no tools`, [{ path: '/tools', message: 'the entry must export `tools`, a non-empty array of defineTool(...) results' }]),
      identity,
    );
  }

  if (exported.length > MAX_TOOLS_PER_PACKAGE) {
    return fail(
      dir,
      new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name} exports ${exported.length} tools, over the limit of ${MAX_TOOLS_PER_PACKAGE}`, [
        { path: '/tools', message: `at most ${MAX_TOOLS_PER_PACKAGE} tools per package; split it into several packages` },
      ]),
      identity,
    );
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
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name}@${packageJson.version} has invalid tools`, issues), identity);
  }
  return { ok: true, dir, packageJson, namespace: namespaceOfPackage(packageJson.name), tools: exported as ToolManifest[] };
}
