import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface DiscoveredPackage {
  /** Real path of the package folder (symlinks resolved, so a workspace plugin is found once). */
  dir: string;
  packageJson: Record<string, unknown>;
  /** Installed by `toolgate plugins install`: the tree its code hash covers and the hash recorded when it was installed. */
  installed?: { codeRoot: string; codeHash: string };
}

async function readPackageJson(dir: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function childDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) dirs.push(...(await childDirs(path)));
    else if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path)))) dirs.push(path);
  }
  return dirs;
}

/**
 * Finds plugin packages: any package whose package.json has a `toolgate` field, either a given folder
 * itself or its children (`node_modules`-style, including `@scope/` folders). A package that fails to
 * parse here is still returned when it declares `toolgate`, so the loader can report it.
 */
export async function discoverPluginPackages(roots: string[]): Promise<DiscoveredPackage[]> {
  const found = new Map<string, DiscoveredPackage>();
  const consider = async (dir: string) => {
    const packageJson = await readPackageJson(dir);
    if (!packageJson || !('toolgate' in packageJson)) return false;
    const real = await realpath(dir);
    if (!found.has(real)) found.set(real, { dir: real, packageJson });
    return true;
  };
  for (const root of roots) {
    if (!(await isDirectory(root))) continue;
    if (await consider(root)) continue;
    for (const dir of await childDirs(root)) await consider(dir);
  }
  return [...found.values()].sort((a, b) => a.dir.localeCompare(b.dir));
}
