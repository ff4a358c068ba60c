import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, type ToolContext, ToolgateError } from '@toolgate/sdk';

/** Largest file a tool writes or reads in one call. */
export const MAX_FILE_BYTES = 1024 * 1024;

export const PATH_DESCRIPTION = 'Path relative to your sandbox folder, with forward slashes, e.g. "reports/summary.md"; absolute paths, ".." outside the sandbox and symbolic links are rejected.';

/** What every files tool tells the model about links (they are refused at any component, even ones pointing inside). */
export const LINKS_NOTE = 'Symbolic links are never followed, at any level of a path, even when they point inside the sandbox.';

export function invalid(pointer: string, message: string, cause?: unknown): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path: pointer, message }], { cause });
}

/** `TOOLGATE_SANDBOX_DIR`, or `.toolgate/sandbox` under the working directory. Read per call so a host can change it. */
export function sandboxRoot(): string {
  return path.resolve(process.env.TOOLGATE_SANDBOX_DIR || path.join(process.cwd(), '.toolgate', 'sandbox'));
}

/*
 * How a path is opened without following links, race-free. Node has no openat(2); on Linux,
 * "/proc/self/fd/<fd>/<name>" is its equivalent: the kernel starts the lookup of <name> at the folder the
 * descriptor holds (the magic link is that folder itself, not a path to it), and O_NOFOLLOW refuses a link
 * at <name>. So each component is opened relative to the folder opened just before it, starting from the
 * tenant's folder: a folder swapped for a symlink after it was opened changes nothing (we hold the folder,
 * not its name), and one swapped before is refused at its own open. No check precedes an open that could
 * be raced. Without /proc (not Linux) the tools refuse to run rather than fall back to a racy check.
 */
const FD_ROOT = '/proc/self/fd';
let fdPathsWork: boolean | undefined;

/** The entry `name` of the folder `dir` holds open, as a path the kernel resolves from that folder. */
export const within = (dir: FileHandle, name: string): string => `${FD_ROOT}/${dir.fd}/${name}`;

const FOLDER = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The caller's own folder, created on first use, held open. The tenant id is percent-encoded so that no
 * tenant name ("..", "a/b") can point outside its folder or at another's. The sandbox root itself is the
 * operator's and may contain links; only what lies below the tenant's folder is the caller's to shape.
 */
export async function openTenantRoot(ctx: ToolContext): Promise<FileHandle> {
  fdPathsWork ??= process.platform === 'linux' && existsSync(FD_ROOT);
  if (!fdPathsWork) throw new ToolgateError(ErrorCode.TOOL_FAILED, `the files tools need ${FD_ROOT} (Linux) to open paths without following links`);
  const tenant = ctx.principal.tenant;
  if (!tenant) throw new ToolgateError(ErrorCode.TOOL_FAILED, 'the call has no tenant to scope the sandbox to');
  const folder = encodeURIComponent(tenant).replace(/^\.{1,2}$/, (dots) => '%2E'.repeat(dots.length));
  const dir = path.join(sandboxRoot(), folder);
  // Only when missing: the read-only tools' workers may not write, not even an existing folder's mkdir.
  if (!existsSync(dir)) await mkdir(dir, { recursive: true });
  return open(await realpath(dir), FOLDER);
}

/** Checks a caller's path and returns it normalised ("" for the root); rejects absolute paths and escapes. */
export function relativePath(input: string, pointer: string): string {
  if (input.includes('\0')) throw invalid(pointer, 'the path contains a NUL character');
  if (input.includes('\\')) throw invalid(pointer, 'use forward slashes in paths');
  if (path.posix.isAbsolute(input) || /^[A-Za-z]:/.test(input)) throw invalid(pointer, `"${input}" is absolute; give a path relative to the sandbox`);
  const normalized = path.posix.normalize(input === '' ? '.' : input).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) throw invalid(pointer, `"${input}" points outside the sandbox`);
  return normalized === '.' ? '' : normalized;
}

/** Splits a normalised relative path into its folder and its last component. */
export function splitPath(rel: string): { folder: string; name: string } {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? { folder: '', name: rel } : { folder: rel.slice(0, slash), name: rel.slice(slash + 1) };
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** Why `name` in `dir` could not be opened as a folder: a link, a file, or missing. */
async function notAFolder(dir: FileHandle, name: string, shown: string, rel: string, pointer: string, error: unknown): Promise<ToolgateError> {
  const code = errno(error);
  if (code === 'ENOENT') return invalid(pointer, `"${rel}" does not exist`, error);
  if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
  // Only to word the refusal: the open above is what refused it.
  const link = await lstat(within(dir, name)).then(
    (info) => info.isSymbolicLink(),
    () => false,
  );
  return link
    ? invalid(pointer, `"${rel}" goes through "${shown}", a symbolic link; links are not followed in the sandbox`, error)
    : invalid(pointer, `"${shown}" is a file, not a folder${shown === rel ? '; read it with files/read' : ''}`, error);
}

/**
 * Opens the folder `rel` below `root` one component at a time (see FD_ROOT), creating missing folders
 * when `create` is set. Returns a new handle the caller closes; `root` stays open.
 */
export async function openFolder(root: FileHandle, rel: string, pointer: string, create = false): Promise<FileHandle> {
  let dir = await open(within(root, '.'), FOLDER);
  let walked = '';
  try {
    for (const name of rel === '' ? [] : rel.split('/')) {
      walked = walked ? `${walked}/${name}` : name;
      let next: FileHandle;
      try {
        next = await open(within(dir, name), FOLDER);
      } catch (error) {
        if (!(create && errno(error) === 'ENOENT')) throw await notAFolder(dir, name, walked, rel, pointer, error);
        // mkdir never follows a link at its last component; a racing creator is fine (EEXIST), the open decides.
        await mkdir(within(dir, name), 0o755).catch((failure: unknown) => {
          if (errno(failure) !== 'EEXIST') throw failure;
        });
        next = await open(within(dir, name), FOLDER).catch(async (again: unknown) => {
          throw await notAFolder(dir, name, walked, rel, pointer, again);
        });
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (error) {
    await dir.close();
    throw error;
  }
}

const FS_MESSAGES: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'has a parent that is a file, not a folder',
  EISDIR: 'is a folder, not a file',
  EEXIST: 'already exists (set ifExists to "overwrite" or "append")',
  ELOOP: 'is a symbolic link; links are not followed in the sandbox',
};

/**
 * What to throw for an error met while working on the caller's path: a cancellation as it is, a file-system
 * error about the path as INVALID_ARGUMENTS on `pointer`, anything else as TOOL_FAILED.
 */
export function fsError(error: unknown, rel: string, pointer: string, signal: AbortSignal): unknown {
  if (error instanceof ToolgateError) return error;
  if (signal.aborted) return signal.reason;
  const message = FS_MESSAGES[errno(error) ?? ''];
  if (message) return invalid(pointer, `"${rel}" ${message}`, error);
  return new ToolgateError(ErrorCode.TOOL_FAILED, `file operation on "${rel}" failed: ${(error as Error).message}`, [], { cause: error });
}
