import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import type { PluginPackageField } from '../plugin/plugin.package';

/*
 * What every process that runs plugin code gets, whoever starts it: the registry's import process
 * and the executor's workers share these rules so the two sandboxes cannot drift apart.
 */

/**
 * The built sdk (this package's `main`), which plugin processes load (manifest validation, descriptor
 * hashes): found from this file's place in the package, src/sandbox or dist/sandbox alike, so a test
 * runner's module map (which points `@toolgate/sdk` at TypeScript sources) does not apply.
 */
const SDK_DIR = resolve(__dirname, '..', '..');
export const BUILT_SDK_ENTRY = resolve(SDK_DIR, (JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { main: string }).main);

/** Node 20 and 22 spell the permission model `--experimental-permission`; 23+ `--permission`. */
export const PERMISSION_FLAG = Number(process.versions.node.split('.')[0]) >= 23 ? '--permission' : '--experimental-permission';

/** Host variables every plugin process gets (none is a secret; tools that start processes need PATH). */
const BASE_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

/** The whole environment of a plugin process: the base variables and those its package declares (`toolgate.env`). */
export function pluginEnv(declared: readonly string[] = []): Record<string, string> {
  return Object.fromEntries([...BASE_ENV, ...declared].flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name] as string]])));
}

/** What loading a package needs to read: the package, every node_modules it resolves from, the sdk and the node_modules it resolves from. */
export function pluginLoadPaths(dir: string): string[] {
  const paths = new Set<string>();
  for (const root of [dir, SDK_DIR]) {
    const real = realpathSync(root);
    paths.add(root).add(real);
    for (let at = real; ; at = dirname(at)) {
      const modules = join(at, 'node_modules');
      if (existsSync(modules)) paths.add(modules);
      if (dirname(at) === at) break;
    }
  }
  // Only the outermost folders: Node 20's permission model stops granting a folder itself (listing it) once a folder inside it is granted too.
  const all = [...paths];
  return all.filter((path) => !all.some((other) => other !== path && path.startsWith(`${other}${sep}`)));
}

/**
 * A loaded package's `toolgate` field as its package.json says now, with the tools entry resolved;
 * PLUGIN_INVALID when the entry no longer lies inside the package (what runs its code reads it anew).
 */
export function pluginEntry(dir: string, what: string): { entry: string; toolgate: PluginPackageField } {
  const toolgate = (JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { toolgate?: PluginPackageField }).toolgate;
  const entry = resolve(dir, toolgate?.tools ?? '');
  const inside = relative(dir, entry);
  if (!toolgate?.tools || inside.startsWith('..') || isAbsolute(inside))
    throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `${what}: package.json in ${dir} no longer names a tools entry inside the package`);
  return { entry, toolgate };
}

/**
 * Run inside a plugin process (self-contained, shipped as source text): a plugin that does not bring
 * its own `@toolgate/sdk` gets the host's, so published plugins may leave it a peer dependency and
 * run on the sdk that checks them. A copy the plugin installed itself still wins.
 */
export function provideHostSdk(sdkEntry: string): void {
  const Module = require('node:module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function resolveWithHostSdk(this: unknown, request: string, ...rest: unknown[]) {
    try {
      return resolveFilename.call(this, request, ...rest);
    } catch (error) {
      if (request === '@toolgate/sdk') return sdkEntry;
      throw error;
    }
  };
}
