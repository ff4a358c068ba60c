import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readInstallRecord } from './plugin-install.record';

export interface DiscoveredPackage {
  /** Real path of the package folder (symlinks resolved, so a workspace plugin is found once). */
  dir: string;
  packageJson: Record<string, unknown>;
  /** Installed by `toolgate plugins install`: the tree its code hash covers and the hash recorded when it was installed. */
  installed?: { codeRoot: string; codeHash: string };
}

/*
 * Synchronous reads: a node_modules folder holds hundreds of package.json files, and reading them
 * through the thread pool took a CLI command ~250 ms where this takes ~20.
 */
function readPackageJson(dir: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function childDirs(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) dirs.push(...childDirs(path));
    else if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path))) dirs.push(path);
  }
  return dirs;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const identityKey = (packageJson: Record<string, unknown>) => `${String(packageJson.name)}@${String(packageJson.version)}`;

/**
 * Versions installed by `toolgate plugins install` under `installDir` (`<name>/<version>/`, each with
 * its install record and its own node_modules). A version whose package.json is gone or unreadable is
 * still returned, named by its record, so the loader reports it as changed since it was installed.
 */
async function discoverInstalled(installDir: string): Promise<DiscoveredPackage[]> {
  const found: DiscoveredPackage[] = [];
  for (const packageDir of childDirs(installDir)) {
    for (const versionDir of childDirs(packageDir)) {
      const record = await readInstallRecord(versionDir);
      if (!record) continue;
      const dir = join(versionDir, 'node_modules', record.name);
      const packageJson = readPackageJson(dir) ?? { name: record.name, version: record.version };
      found.push({ dir: realOrSame(dir), packageJson, installed: { codeRoot: join(versionDir, 'node_modules'), codeHash: record.codeHash } });
    }
  }
  return found;
}

/**
 * Finds plugin packages: those installed under `installDir` (see discoverInstalled), then any package
 * whose package.json has a `toolgate` field, either a given folder itself or its children
 * (`node_modules`-style, including `@scope/` folders). An installed version stands for its name and
 * version wherever else a copy lies. A package that fails to parse here is still returned when it
 * declares `toolgate`, so the loader can report it.
 */
export async function discoverPluginPackages(roots: string[], installDir?: string | null): Promise<DiscoveredPackage[]> {
  const found = new Map<string, DiscoveredPackage>();
  const installed = new Set<string>();
  if (installDir) {
    for (const pkg of await discoverInstalled(installDir)) {
      found.set(pkg.dir, pkg);
      installed.add(identityKey(pkg.packageJson));
    }
  }
  const consider = (dir: string) => {
    const packageJson = readPackageJson(dir);
    if (!packageJson || !('toolgate' in packageJson)) return false;
    const real = realpathSync(dir);
    if (!found.has(real) && !installed.has(identityKey(packageJson))) found.set(real, { dir: real, packageJson });
    return true;
  };
  for (const root of roots) {
    if (!isDirectory(root)) continue;
    if (consider(root)) continue;
    for (const dir of childDirs(root)) consider(dir);
  }
  return [...found.values()].sort((a, b) => a.dir.localeCompare(b.dir));
}
