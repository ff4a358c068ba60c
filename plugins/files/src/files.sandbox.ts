import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, type ToolContext, ToolgateError } from '@toolgate/sdk';

/** Largest file a tool writes or reads in one call. */
export const MAX_FILE_BYTES = 1024 * 1024;

export const PATH_DESCRIPTION = 'Path relative to your sandbox folder, with forward slashes, e.g. "reports/summary.md"; absolute paths and ".." outside the sandbox are rejected.';

export function invalid(pointer: string, message: string, cause?: unknown): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path: pointer, message }], { cause });
}

/** `TOOLGATE_SANDBOX_DIR`, or `.toolgate/sandbox` under the working directory. Read per call so a host can change it. */
export function sandboxRoot(): string {
  return path.resolve(process.env.TOOLGATE_SANDBOX_DIR || path.join(process.cwd(), '.toolgate', 'sandbox'));
}

/**
 * The caller's own folder, created on first use, as a real path (symlinks resolved). The tenant id is
 * percent-encoded so that no tenant name ("..", "a/b") can point outside its folder or at another's.
 */
export async function tenantRoot(ctx: ToolContext): Promise<string> {
  const tenant = ctx.principal.tenant;
  if (!tenant) throw new ToolgateError(ErrorCode.TOOL_FAILED, 'the call has no tenant to scope the sandbox to');
  const folder = encodeURIComponent(tenant).replace(/^\.{1,2}$/, (dots) => '%2E'.repeat(dots.length));
  const dir = path.join(sandboxRoot(), folder);
  await mkdir(dir, { recursive: true });
  return realpath(dir);
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

const inside = (root: string, candidate: string): boolean => candidate === root || candidate.startsWith(root + path.sep);

/** The real path of an existing entry, which must stay inside `root` once symlinks are resolved. */
export async function existingInside(root: string, rel: string, pointer: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path.join(root, rel));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw invalid(pointer, `"${rel}" does not exist`, error);
    throw error;
  }
  if (!inside(root, real)) throw invalid(pointer, `"${rel}" resolves outside the sandbox (symlink)`);
  return real;
}

/**
 * Where a new file may be created: the nearest existing ancestor must resolve inside `root`, then the
 * missing folders are created under it. The last component is opened with O_NOFOLLOW by the caller.
 */
export async function parentInside(root: string, rel: string, pointer: string): Promise<string> {
  const missing: string[] = [];
  let ancestor = path.posix.dirname(rel);
  for (;;) {
    try {
      const real = await realpath(path.join(root, ancestor));
      if (!inside(root, real)) throw invalid(pointer, `"${rel}" resolves outside the sandbox (symlink)`);
      const parent = path.join(real, ...missing);
      await mkdir(parent, { recursive: true });
      return path.join(parent, path.posix.basename(rel));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || ancestor === '.') throw error;
      missing.unshift(path.posix.basename(ancestor));
      ancestor = path.posix.dirname(ancestor);
    }
  }
}

export const toPosix = (root: string, absolute: string): string => path.relative(root, absolute).split(path.sep).join('/');

const FS_MESSAGES: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'has a parent that is a file, not a folder',
  EISDIR: 'is a folder, not a file',
  EEXIST: 'already exists (set ifExists to "overwrite" or "append")',
  ELOOP: 'is a symbolic link; links are not followed',
};

/**
 * What to throw for an error met while working on the caller's path: a cancellation as it is, a file-system
 * error about the path as INVALID_ARGUMENTS on `pointer`, anything else as TOOL_FAILED.
 */
export function fsError(error: unknown, rel: string, pointer: string, signal: AbortSignal): unknown {
  if (error instanceof ToolgateError) return error;
  if (signal.aborted) return signal.reason;
  const message = FS_MESSAGES[(error as NodeJS.ErrnoException).code ?? ''];
  if (message) return invalid(pointer, `"${rel}" ${message}`, error);
  return new ToolgateError(ErrorCode.TOOL_FAILED, `file operation on "${rel}" failed: ${(error as Error).message}`, [], { cause: error });
}
