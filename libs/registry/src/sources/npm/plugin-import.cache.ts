import { createHash, randomUUID } from 'node:crypto';
import { closeSync, lstatSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { ImportOutcome } from './plugin.importer';

/** A successful import: the only outcome kept (a failure is imported again, so its error is always current). */
export type ImportedTools = Extract<ImportOutcome, { kind: 'tools' }>;

interface FileFingerprint {
  path: string;
  sha256: string;
}

interface CacheEntry {
  format: typeof FORMAT;
  files: FileFingerprint[];
  outcome: ImportedTools;
}

const FORMAT = 1;
/** A package past these bounds is imported every time: fingerprinting it would cost what importing does. */
const MAX_FILES = 5_000;
const MAX_BYTES = 128 * 1024 * 1024;

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** One read buffer for every file hashed: a pass reads tens of MB (mathjs, ajv, ...), which as one Buffer per file stayed resident until the next collection. */
const READ_CHUNK = Buffer.allocUnsafe(1 << 20);

/** sha256 of a file's bytes, read through READ_CHUNK. */
function sha256OfFile(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    for (let read = readSync(fd, READ_CHUNK, 0, READ_CHUNK.length, null); read > 0; read = readSync(fd, READ_CHUNK, 0, READ_CHUNK.length, null)) hash.update(READ_CHUNK.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** sha256 of a value's JSON: what a cache key is made of. */
export const cacheKeyOf = (parts: unknown): string => sha256(JSON.stringify(parts));

/** Every regular file under `dir` (symbolic links are not followed: what they point to counts where it is loaded from). */
function filesUnder(dir: string, found: string[]): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (found.length > MAX_FILES) return false;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!filesUnder(path, found)) return false;
    } else if (entry.isFile()) found.push(path);
  }
  return found.length <= MAX_FILES;
}

/** `read(path)`, or null when the file is gone or unreadable. */
const orNull = <T>(read: () => T): T | null => {
  try {
    return read();
  } catch {
    return null;
  }
};

/** `read(path)` once per pass: a later package that loads the same file gets the first answer. */
const remembered = <T>(memo: Map<string, T | null>, path: string, read: () => T): T | null => {
  if (!memo.has(path)) memo.set(path, orNull(read));
  return memo.get(path) ?? null;
};

/**
 * What an import read, by content: every file of the package (a new or removed file counts, for a
 * package that requires a folder's files) and each file it loaded from outside (hoisted
 * dependencies, the sdk), hashed here, never taken from the plugin's own process. Null when the
 * package is too large to be worth it, or a file vanished while it was read. Synchronous, as
 * packageCodeHash is: a package is a few hundred small files, and the same reads through the thread
 * pool made the plugin pass of `tools list` take ~440 ms instead of ~330.
 */
function fingerprint(packageDir: string, loadedOutside: readonly string[], pass: PassFiles = newPass()): FileFingerprint[] | null {
  const inside: string[] = [];
  if (!orNull(() => filesUnder(packageDir, inside))) return null;
  const paths = [...new Set([...inside, ...loadedOutside])].sort();
  if (paths.length > MAX_FILES) return null;
  const stats = paths.map((path) => remembered(pass.stats, path, () => lstatSync(path)));
  if (stats.some((stat) => !stat?.isFile())) return null;
  if (stats.reduce((total, stat) => total + (stat?.size ?? 0), 0) > MAX_BYTES) return null;
  const digests = paths.map((path) => remembered(pass.hashes, path, () => sha256OfFile(path)));
  if (digests.some((digest) => !digest)) return null;
  return paths.map((path, i) => ({ path, sha256: digests[i] as string }));
}

/**
 * What one loading pass has read, by path: the files several packages load (the sdk, ajv and other
 * shared dependencies: most of each package's ~170 files) are stat'ed and hashed once per pass.
 */
interface PassFiles {
  stats: Map<string, Stats | null>;
  hashes: Map<string, string | null>;
}

const newPass = (): PassFiles => ({ stats: new Map(), hashes: new Map() });

/** sha256 over a folder's files (their paths and contents): the sdk build a cached validation ran against. */
export async function folderDigest(dir: string): Promise<string | null> {
  const files = fingerprint(dir, []);
  return files && sha256(JSON.stringify(files));
}

const outsideOf = (packageDir: string, loaded: readonly string[]): string[] =>
  loaded.filter((path) => {
    const inside = relative(packageDir, path);
    return isAbsolute(path) && (inside.startsWith('..') || isAbsolute(inside));
  });

const sameFiles = (a: readonly FileFingerprint[], b: readonly FileFingerprint[]): boolean => a.length === b.length && a.every((file, i) => file.path === b[i].path && file.sha256 === b[i].sha256);

/**
 * Import results of plugin packages, kept by what the import read: a package whose files (and the
 * files it loaded from outside, and the sdk, Node, its declared variables and the import limits, all
 * in the key) are byte for byte those of a kept import gets that import's tools without a new
 * process. Starting a process per package cost every server start and CLI command seconds. Any
 * change to any of them imports afresh, so a changed descriptor is seen exactly as without the cache.
 * Entries are files in a folder of the user's (0700): whoever may write there may write the plugins.
 */
export class PluginImportCache {
  /** Within one loading pass, a file several packages loaded (the sdk, shared dependencies) is read once. */
  private pass = newPass();

  /** Null: every import runs its process. */
  constructor(private readonly dir: string | null) {}

  /** Starts a loading pass: files are read afresh, never trusted from an earlier pass. */
  beginPass(): void {
    this.pass = newPass();
  }

  async lookup(key: string, packageDir: string): Promise<ImportedTools | null> {
    if (!this.dir) return null;
    let entry: CacheEntry;
    try {
      entry = JSON.parse(await readFile(join(this.dir, `${key}.json`), 'utf8')) as CacheEntry;
    } catch {
      return null;
    }
    if (entry.format !== FORMAT || entry.outcome?.kind !== 'tools' || !Array.isArray(entry.files)) return null;
    const now = fingerprint(
      packageDir,
      outsideOf(
        packageDir,
        entry.files.map((file) => file.path),
      ),
      this.pass,
    );
    return now && sameFiles(now, entry.files) ? entry.outcome : null;
  }

  /** Keeps a successful import with the files it read; a cache that cannot be written only costs the next start its import. */
  async store(key: string, packageDir: string, outcome: ImportedTools, loaded: readonly string[]): Promise<void> {
    if (!this.dir) return;
    const files = fingerprint(packageDir, outsideOf(packageDir, loaded), this.pass);
    if (!files) return;
    const entry: CacheEntry = { format: FORMAT, files, outcome };
    const target = join(this.dir, `${key}.json`);
    const temporary = `${target}.${randomUUID()}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(temporary, JSON.stringify(entry), { mode: 0o600 });
      await rename(temporary, target);
    } catch {
      await rm(temporary, { force: true });
    }
  }
}
