import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import {
  ErrorCode,
  type ErrorDetail,
  MAX_TOOLS_PER_PACKAGE,
  namespaceOfPackage,
  type PluginPackageJson,
  packageCodeHash,
  parsePluginPackageJson,
  type ToolDescriptor,
  ToolgateError,
  type ToolManifest,
} from '@toolgate/sdk';
import { BUILT_SDK_ENTRY, pluginEnv, pluginLoadPaths } from '@toolgate/sdk/sandbox';
import semver from 'semver';
import type { PluginCode } from '../../persistence/plugin.entity';
import { mapAtMost } from '../concurrency.util';
import type { DiscoveredPackage } from './plugin.discovery';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits, type ImportOutcome, importPluginTools } from './plugin.importer';
import { cacheKeyOf, folderDigest, type PluginImportCache } from './plugin-import.cache';

/** A package a tool source offers, loaded and validated: an npm plugin, or an MCP server's tool list. */
export interface LoadedPlugin {
  ok: true;
  /** Provenance: the package folder, or `mcp:<server>`. */
  dir: string;
  /** The package (or server) name and its semver version. */
  identity: { name: string; version: string };
  namespace: string;
  tools: ToolManifest[];
  /** An npm package's code as loaded: the tree hashed and its hash, which the workers that run it check (absent when too large to hash, and for MCP servers). */
  code?: PluginCode;
}

export interface FailedPlugin {
  ok: false;
  dir: string;
  /** Present when package.json names a package and a valid version, so the failure can be recorded against them. */
  identity?: { name: string; version: string };
  /** What to call a failure without an identity (an MCP server that never said its version). */
  label?: string;
  error: ToolgateError;
}

export type PluginLoadResult = LoadedPlugin | FailedPlugin;

const fail = (dir: string, error: ToolgateError, identity?: { name: string; version: string }): FailedPlugin => ({ ok: false, dir, error, identity });

function identityOf(raw: Record<string, unknown>): { name: string; version: string } | undefined {
  const { name, version } = raw;
  return typeof name === 'string' && typeof version === 'string' && semver.valid(version) ? { name, version } : undefined;
}

const STAND_IN = Symbol('toolgate.code-elsewhere');

/** True for the stand-in the catalog holds where a plugin's function was: the code must be loaded from the package. */
export function isCodeStandIn(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[STAND_IN] === true;
}

/**
 * A manifest for the catalog from a descriptor the import process returned (or a remote worker
 * announced): the data as the plugin declared it, with stand-ins where its functions were, so the
 * descriptor hash and every check that asks whether a tool has code or a health check see the same thing. The code itself runs only where
 * the executor loads it (a plugin worker, or this process when isolation is off).
 */
export function manifestFromDescriptor(descriptor: ToolDescriptor, packageName: string): ToolManifest {
  const { hasHealthCheck, ...data } = descriptor;
  const elsewhere = Object.assign(
    () => {
      throw new ToolgateError(ErrorCode.INTERNAL, `${packageName}/${descriptor.name} runs where the executor loads it, not in the catalog`);
    },
    { [STAND_IN]: true },
  );
  return { ...data, ...(descriptor.execution === 'server' ? { run: elsewhere } : {}), ...(hasHealthCheck ? { healthCheck: elsewhere } : {}) } as ToolManifest;
}

/** Each package is imported in a process of its own; a few at a time, so a large folder cannot swamp the machine. */
const IMPORT_CONCURRENCY = 4;

/** Loads every discovered package (see loadPlugin), results in the order given. */
export function loadPlugins(discovered: readonly DiscoveredPackage[], limits: ImportLimits = DEFAULT_IMPORT_LIMITS, cache?: PluginImportCache): Promise<PluginLoadResult[]> {
  return mapAtMost(discovered, IMPORT_CONCURRENCY, (pkg) => loadPlugin(pkg, undefined, limits, cache));
}

let sdkDigest: Promise<string | null> | undefined;

const insideAny = (roots: readonly string[], path: string) =>
  roots.some((root) => {
    const inside = relative(root, path);
    return !inside.startsWith('..') && !isAbsolute(inside);
  });

/**
 * The import process's answer for a package, from the cache when the package, what it loaded, the
 * sdk build, Node, its declared variables and the limits are all as they were for a kept import.
 */
async function importTools(
  dir: string,
  entry: string,
  options: { maxTools: number; env: readonly string[]; addons: boolean },
  limits: ImportLimits,
  cache?: PluginImportCache,
): Promise<ImportOutcome> {
  if (!cache) return importPluginTools(dir, entry, options, limits);
  let packageDir: string;
  let key: string;
  try {
    packageDir = realpathSync(dir);
    sdkDigest ??= folderDigest(dirname(BUILT_SDK_ENTRY));
    const sdk = await sdkDigest;
    if (!sdk) return importPluginTools(dir, entry, options, limits);
    key = cacheKeyOf({ node: process.version, sdk, packageDir, entry: realpathSync(entry), env: pluginEnv(options.env), addons: options.addons, maxTools: options.maxTools, limits });
    const kept = await cache.lookup(key, packageDir);
    if (kept) return kept;
  } catch {
    // A package the cache cannot read is imported the ordinary way, which reports what is wrong with it.
    return importPluginTools(dir, entry, options, limits);
  }
  const outcome = await importPluginTools(dir, entry, options, limits);
  if (outcome.kind === 'tools' && outcome.issues.length === 0) {
    // Only files the import process could read count: its list is the plugin's word, never a way to make this process read elsewhere.
    const readable = pluginLoadPaths(dir);
    const loaded = (Array.isArray(outcome.loaded) ? outcome.loaded : []).filter((path): path is string => typeof path === 'string' && insideAny(readable, path));
    await cache.store(key, packageDir, { kind: 'tools', tools: outcome.tools, issues: [] }, loaded);
  }
  return outcome;
}

/**
 * What an author should do about an entry that threw on import. ES modules load through require(esm)
 * in every plugin process (Node's module hooks would need worker threads, which the sandbox forbids),
 * so top-level await cannot work, and an ES module cannot be handed the gateway's sdk.
 */
function importHint(message: string): string {
  if (/top-level await/i.test(message)) return 'top-level await cannot work: plugin processes load the entry with require(esm); move the await into run() or a lazily awaited promise';
  if (/Cannot find (package|module) '@toolgate\/sdk'/.test(message)) {
    return 'an ES module plugin cannot use the gateway-provided @toolgate/sdk (only CommonJS plugins get it): build to CommonJS (the scaffold does), or depend on the sdk';
  }
  if (/Cannot find module/.test(message)) return 'the entry or a module it requires is missing: build the package (npm run build) and install its dependencies';
  return 'the entry module threw on import';
}

/**
 * Loads one discovered package: checks package.json and the sdk range, then imports the entry and
 * validates every tool in a bounded process of its own (see importPluginTools).
 */
export async function loadPlugin(discovered: DiscoveredPackage, hostSdkVersion?: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS, cache?: PluginImportCache): Promise<PluginLoadResult> {
  const { dir } = discovered;
  // Hashed before anything of it is read or run: an install whose files are not those installed is never imported.
  const codeRoot = discovered.installed?.codeRoot ?? dir;
  const codeHash = packageCodeHash(codeRoot);
  if (discovered.installed && codeHash !== discovered.installed.codeHash) {
    const named = identityOf(discovered.packageJson);
    const what = named ? `${named.name}@${named.version}` : dir;
    return fail(
      dir,
      new ToolgateError(
        ErrorCode.PLUGIN_INVALID,
        `${what}: the files in ${codeRoot} are not the ones installed (code hash ${codeHash ?? 'unreadable'}, installed ${discovered.installed.codeHash}); install it again with \`toolgate plugins install --force ${what}\``,
        [{ path: '/code', message: 'changed since it was installed' }],
      ),
      named,
    );
  }
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

  let imported: ImportOutcome;
  try {
    imported = await importTools(dir, entry, { maxTools: MAX_TOOLS_PER_PACKAGE, env: packageJson.toolgate.env ?? [], addons: packageJson.toolgate.addons === true }, limits, cache);
  } catch (error) {
    return fail(dir, error as ToolgateError, identity);
  }
  if (imported.kind === 'threw') {
    return fail(
      dir,
      new ToolgateError(ErrorCode.PLUGIN_INVALID, `importing ${packageJson.name}@${packageJson.version} failed: ${imported.message}`, [
        { path: '/toolgate/tools', message: importHint(imported.message) },
      ]),
      identity,
    );
  }
  if (imported.kind === 'none') {
    return fail(
      dir,
      new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name} exports ${imported.count === 0 ? 'no tools' : `${imported.count} tools`}`, [{ path: '/tools', message: imported.why }]),
      identity,
    );
  }
  const exported = imported.tools;
  const issues: ErrorDetail[] = [...imported.issues];
  const names = new Map<string, number>();
  exported.forEach((manifest, i) => {
    const name = manifest.name;
    if (typeof name === 'string') {
      const first = names.get(name);
      if (first !== undefined) issues.push({ path: `/tools/${i}/name`, message: `duplicate tool name "${name}" (also /tools/${first})` });
      else names.set(name, i);
    }
  });
  if (issues.length > 0) {
    return fail(dir, new ToolgateError(ErrorCode.PLUGIN_INVALID, `${packageJson.name}@${packageJson.version} has invalid tools`, issues), identity);
  }
  return {
    ok: true,
    dir,
    identity,
    namespace: namespaceOfPackage(packageJson.name),
    tools: exported.map((descriptor) => manifestFromDescriptor(descriptor, packageJson.name)),
    ...(codeHash ? { code: { root: codeRoot, hash: codeHash } } : {}),
  };
}
