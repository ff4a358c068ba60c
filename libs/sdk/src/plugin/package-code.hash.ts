import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** A tree past these bounds gets no code hash: hashing it would cost what the protection is worth. */
export const CODE_HASH_LIMITS = { maxFiles: 20_000, maxBytes: 512 * 1024 * 1024 };

/**
 * sha256 over a folder's tree: every file's path (relative, `/`-separated) and content, every symbolic
 * link's path and target (links are not followed), in a fixed order. The same bytes at another place
 * give the same hash, so a version hashed when it was installed is recognised where it was moved to;
 * any added, removed, renamed or changed file gives another. Used by the host to pin the code a
 * version loaded and by the worker that runs it to refuse anything else. Null when the tree is over
 * the limits or cannot be read whole.
 */
export function packageCodeHash(root: string, limits: { maxFiles: number; maxBytes: number } = CODE_HASH_LIMITS): string | null {
  const hash = createHash('sha256');
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, prefix: string): boolean => {
    const names = readdirSync(dir).sort();
    for (const name of names) {
      const path = join(dir, name);
      const relative = prefix ? `${prefix}/${name}` : name;
      const stat = lstatSync(path);
      if (++files > limits.maxFiles) return false;
      if (stat.isSymbolicLink()) hash.update(`l ${relative}\0${readlinkSync(path)}\n`);
      else if (stat.isDirectory()) {
        hash.update(`d ${relative}\n`);
        if (!walk(path, relative)) return false;
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > limits.maxBytes) return false;
        hash.update(`f ${relative}\0${createHash('sha256').update(readFileSync(path)).digest('hex')}\n`);
      }
    }
    return true;
  };
  try {
    return walk(root, '') ? hash.digest('hex') : null;
  } catch {
    return null;
  }
}
