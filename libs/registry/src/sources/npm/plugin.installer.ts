import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { ErrorCode, packageCodeHash, ToolgateError } from '@toolgate/sdk';
import semver from 'semver';
import { discoverPluginPackages } from './plugin.discovery';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from './plugin.importer';
import { loadPlugin } from './plugin.loader';
import { INSTALL_RECORD_FILE, type InstallRecord, readInstallRecord } from './plugin-install.record';

export interface InstallOptions {
  /** Where installed versions live: `<installDir>/<name>/<version>/`. */
  installDir: string;
  /** npm registry URL; default whatever the operator's npm config says. */
  registry?: string;
  /** Replace a version that is already installed. */
  force?: boolean;
  /** Run the package's (and its dependencies') install scripts; off by default, as a plugin is code not yet trusted. */
  scripts?: boolean;
  /** The folder whose `.npmrc` applies (scoped registries, tokens); default the current one. */
  cwd?: string;
  importLimits?: ImportLimits;
}

export interface Installed {
  record: InstallRecord;
  dir: string;
  /** The tool ids the version offers (namespace/name). */
  toolIds: string[];
}

/** npm's own package-name rule, scope optional: the only names that become folders here. */
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

function badSpec(spec: string, why: string): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot install "${spec}": ${why}`, [{ path: '<spec>', message: why }]);
}

function runNpm(args: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((done) => {
    execFile('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } }, (error, stdout, stderr) =>
      done({ ok: !error, output: `${stdout}\n${stderr}` }),
    );
  });
}

/** The lines of npm's output that say what went wrong, without its log-file boilerplate. */
function npmComplaint(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((line) => line && !/complete log of this run|^A complete log|^\s*$/.test(line));
  return lines.slice(0, 6).join('; ').slice(0, 800);
}

/**
 * Installs one plugin version into a folder of its own through npm (the operator's registry, scopes
 * and tokens apply; the lockfile npm writes pins every dependency), then loads it through the real
 * loader before keeping it. Nothing is kept unless the whole install is valid, and an installed
 * version is replaced only with `force`; the new folder takes the old one's place in one rename.
 */
export async function installPlugin(spec: string, options: InstallOptions): Promise<Installed> {
  const trimmed = spec.trim();
  if (!trimmed || trimmed.length > 1000) throw badSpec(spec, 'give an npm package spec (name, name@version or range, or a tarball)');
  if (trimmed.startsWith('-')) throw badSpec(spec, 'a spec cannot start with "-"');
  const cwd = options.cwd ?? process.cwd();
  // A local tarball or folder is named by its absolute path, so it means the same from the staging folder.
  const target = /^(\.{1,2}\/|\/)/.test(trimmed) || /\.(tgz|tar\.gz)$/.test(trimmed) ? `file:${resolve(cwd, trimmed.replace(/^file:/, ''))}` : trimmed;
  if (target.startsWith('file:') && !existsSync(target.slice('file:'.length))) throw badSpec(spec, `${target.slice('file:'.length)} does not exist`);

  await mkdir(options.installDir, { recursive: true });
  const staging = await mkdtemp(join(options.installDir, '.staging-'));
  try {
    await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: 'toolgate-plugin-install', private: true }, null, 2)}\n`);
    const npmrc = join(cwd, '.npmrc');
    if (existsSync(npmrc)) await copyFile(npmrc, join(staging, '.npmrc'));
    const args = ['install', '--save-exact', '--no-audit', '--no-fund', '--omit=dev', '--omit=optional', '--legacy-peer-deps', '--loglevel=error'];
    if (!options.scripts) args.push('--ignore-scripts');
    if (options.registry) args.push('--registry', options.registry);
    const npm = await runNpm([...args, '--', target], staging);
    if (!npm.ok) {
      const why = npmComplaint(npm.output);
      const missing = /E404|404 Not Found|No matching version|ETARGET|ENOENT/.test(npm.output);
      throw new ToolgateError(missing ? ErrorCode.INVALID_ARGUMENTS : ErrorCode.UNAVAILABLE, `npm could not install "${spec}": ${why}`, [
        { path: '<spec>', message: missing ? 'no such package or version' : 'npm failed' },
      ]);
    }
    await rm(join(staging, '.npmrc'), { force: true });

    const manifest = JSON.parse(await readFile(join(staging, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const [name] = Object.keys(manifest.dependencies ?? {});
    if (!name || !PACKAGE_NAME.test(name)) throw badSpec(spec, 'npm installed no package with a valid name');
    const packageDir = join(staging, 'node_modules', name);
    const packageJson = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const version = packageJson.version;
    if (typeof version !== 'string' || !semver.valid(version)) throw badSpec(spec, `${name} has no valid semver version`);
    const lock = JSON.parse(await readFile(join(staging, 'package-lock.json'), 'utf8').catch(() => '{}')) as { packages?: Record<string, { resolved?: string; integrity?: string }> };
    const locked = lock.packages?.[`node_modules/${name}`] ?? {};

    const codeRoot = join(staging, 'node_modules');
    const codeHash = packageCodeHash(codeRoot);
    if (!codeHash) throw badSpec(spec, `${name}@${version} with its dependencies is too large to pin by hash`);
    const loaded = await loadPlugin({ dir: packageDir, packageJson, installed: { codeRoot, codeHash } }, undefined, options.importLimits ?? DEFAULT_IMPORT_LIMITS);
    if (!loaded.ok) throw loaded.error;

    const record: InstallRecord = {
      name,
      version,
      spec: trimmed,
      resolved: locked.resolved?.startsWith('http') ? locked.resolved : target.startsWith('file:') ? target : (locked.resolved ?? null),
      integrity: locked.integrity ?? null,
      codeHash,
      installedAt: new Date().toISOString(),
    };
    await writeFile(join(staging, INSTALL_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);

    const dir = versionDir(options.installDir, name, version);
    if (existsSync(dir) && !options.force) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${name}@${version} is already installed in ${dir}; add --force to install it again`, [{ path: '<spec>', message: 'already installed' }]);
    }
    await mkdir(join(dir, '..'), { recursive: true });
    const replaced = existsSync(dir) ? `${staging}.replaced` : null;
    if (replaced) await rename(dir, replaced);
    await rename(staging, dir);
    if (replaced) await rm(replaced, { recursive: true, force: true });
    return { record, dir, toolIds: loaded.tools.map((tool) => `${loaded.namespace}/${tool.name}`) };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function versionDir(installDir: string, name: string, version: string): string {
  const dir = join(installDir, name, version);
  if (!PACKAGE_NAME.test(name) || !semver.valid(version) || isAbsolute(name)) throw badSpec(`${name}@${version}`, 'not a package name and version');
  return dir;
}

/** Splits `name@version` (scoped or not). */
function parseNameAtVersion(value: string): { name: string; version: string } {
  const at = value.lastIndexOf('@');
  const name = at > 0 ? value.slice(0, at) : '';
  const version = at > 0 ? value.slice(at + 1) : '';
  if (!PACKAGE_NAME.test(name) || !semver.valid(version)) throw badSpec(value, 'give the exact installed version, as name@1.2.3');
  return { name, version };
}

/** Removes one installed version (its folder); the catalog marks it MISSING on its next reload. */
export async function uninstallPlugin(nameAtVersion: string, installDir: string): Promise<InstallRecord> {
  const { name, version } = parseNameAtVersion(nameAtVersion);
  const dir = versionDir(installDir, name, version);
  const record = await readInstallRecord(dir);
  if (!record) {
    throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `${name}@${version} is not installed in ${installDir}`, [{ path: '<name@version>', message: 'not installed' }]);
  }
  await rm(dir, { recursive: true, force: true });
  // The package's folder (and its scope's) go when their last version does.
  await rmdir(join(installDir, name)).catch(() => undefined);
  if (name.startsWith('@')) await rmdir(join(installDir, name.split('/')[0] as string)).catch(() => undefined);
  return record;
}

/** The versions installed under `installDir`, with whether their files are still the ones installed. */
export async function listInstalledPlugins(installDir: string): Promise<(InstallRecord & { dir: string; intact: boolean })[]> {
  const listed: (InstallRecord & { dir: string; intact: boolean })[] = [];
  for (const pkg of await discoverPluginPackages([], installDir)) {
    if (!pkg.installed) continue;
    const versionFolder = join(pkg.installed.codeRoot, '..');
    const record = await readInstallRecord(versionFolder);
    if (record) listed.push({ ...record, dir: versionFolder, intact: packageCodeHash(pkg.installed.codeRoot) === record.codeHash });
  }
  return listed.sort((a, b) => a.name.localeCompare(b.name) || semver.compare(a.version, b.version));
}
