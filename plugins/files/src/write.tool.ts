import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { defineTool } from '@toolgate/sdk';
import { fsError, invalid, LINKS_NOTE, MAX_FILE_BYTES, openFolder, openTenantRoot, PATH_DESCRIPTION, relativePath, splitPath, within } from './files.sandbox';

export interface WriteArgs {
  path: string;
  content: string;
  encoding?: 'utf8' | 'base64';
  ifExists?: 'error' | 'overwrite' | 'append';
}

export interface WriteOutput {
  path: string;
  bytesWritten: number;
  size: number;
  created: boolean;
  sha256: string;
}

// O_NOFOLLOW: a link at the last component is refused, never written through. O_RDWR so that an append can hash the whole file.
const CREATE = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const EXISTING = { overwrite: constants.O_RDWR | constants.O_NOFOLLOW, append: constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW } as const;

export const writeTool = defineTool<WriteArgs, WriteOutput>({
  name: 'write',
  title: 'Write a file in the sandbox',
  description:
    'Saves text or binary content (base64) to a file in the caller\'s private sandbox folder, creating missing folders: "save this summary to notes/summary.md", ' +
    '"write the CSV to exports/sales.csv", "store the chart PNG", "append a line to log.txt". By default it refuses to replace an existing file; set ' +
    `ifExists to "overwrite" or "append". Files are limited to 1 MiB; absolute paths and ".." escapes are rejected. ${LINKS_NOTE} ` +
    'Each tenant has its own folder; nothing outside it is reachable. Do NOT use it to read a file back (use files/read), to see which files exist ' +
    '(use files/list), or to send data to a web server (use http/post).',
  category: ['files', 'storage'],
  tags: ['write file', 'save', 'store', 'create file', 'append', 'export', 'sandbox', 'file system'],
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 512, description: PATH_DESCRIPTION },
      content: { type: 'string', maxLength: 2 * MAX_FILE_BYTES, description: 'What to write: text, or base64 when encoding is "base64".' },
      encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8', description: 'utf8 text (default) or base64 for binary data such as images.' },
      ifExists: {
        type: 'string',
        enum: ['error', 'overwrite', 'append'],
        default: 'error',
        description: 'When the file already exists: error (default, nothing is changed), overwrite it, or append to it.',
      },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the sandbox.' },
      bytesWritten: { type: 'integer', description: 'Bytes written by this call.' },
      size: { type: 'integer', description: 'Size of the file afterwards, in bytes.' },
      created: { type: 'boolean', description: 'Whether the file did not exist before.' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the whole file afterwards, hex.' },
    },
    required: ['path', 'bytesWritten', 'size', 'created', 'sha256'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Save "Buy milk" to notes/todo.txt, replacing it if it is there',
      arguments: { path: 'notes/todo.txt', content: 'Buy milk\n', ifExists: 'overwrite' },
      output: { path: 'notes/todo.txt', bytesWritten: 9, size: 9, created: true, sha256: createHash('sha256').update('Buy milk\n').digest('hex') },
    },
    {
      query: 'Store this 1x1 PNG as images/pixel.png',
      arguments: {
        path: 'images/pixel.png',
        content: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
        encoding: 'base64',
        ifExists: 'overwrite',
      },
    },
    { query: 'Append a line to logs/run.log', arguments: { path: 'logs/run.log', content: 'step 1 done\n', ifExists: 'append' } },
  ],
  permissions: { scopes: ['fs:write'], risk: 'write' },
  limits: { timeoutMs: 5000, maxConcurrency: 4, retries: 0, idempotent: false },
  async run(args, ctx) {
    const rel = relativePath(args.path, '/path');
    if (rel === '') throw invalid('/path', 'give a file name, not the sandbox folder itself');
    const data = decode(args.content, args.encoding ?? 'utf8');
    const mode = args.ifExists ?? 'error';
    const { folder, name } = splitPath(rel);
    const root = await openTenantRoot(ctx);
    try {
      ctx.signal.throwIfAborted();
      const dir = await openFolder(root, folder, '/path', true);
      const { handle, created } = await openTarget(dir, name, mode).finally(() => dir.close());
      try {
        const before = await handle.stat();
        if (!before.isFile()) throw invalid('/path', `"${rel}" is not a file`);
        if (mode === 'append' && before.size + data.length > MAX_FILE_BYTES) {
          throw invalid('/content', `appending ${data.length} bytes would make the file larger than ${MAX_FILE_BYTES} bytes`);
        }
        if (mode === 'overwrite') await handle.truncate(0);
        await handle.writeFile(data, { signal: ctx.signal });
        const whole = mode === 'append' ? await readAll(handle) : data;
        return {
          path: rel,
          bytesWritten: data.length,
          size: whole.length,
          created,
          sha256: createHash('sha256').update(whole).digest('hex'),
        };
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw fsError(error, rel, '/path', ctx.signal);
    } finally {
      await root.close();
    }
  },
});

/** Creates `name` in the verified folder `dir`, or opens the existing file when `mode` allows it. */
async function openTarget(dir: FileHandle, name: string, mode: 'error' | 'overwrite' | 'append'): Promise<{ handle: FileHandle; created: boolean }> {
  try {
    return { handle: await open(within(dir, name), CREATE, 0o644), created: true };
  } catch (error) {
    if (mode === 'error' || (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { handle: await open(within(dir, name), EXISTING[mode]), created: false };
  }
}

/** The whole file through its handle (positional reads: the handle's own position is at the end after an append). */
async function readAll(handle: FileHandle): Promise<Buffer> {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(size);
  const { bytesRead } = await handle.read(buffer, 0, size, 0);
  return buffer.subarray(0, bytesRead);
}

function decode(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'base64' && !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(content)) throw invalid('/content', 'content is not valid base64');
  const data = Buffer.from(content, encoding);
  if (data.length > MAX_FILE_BYTES) throw invalid('/content', `content is ${data.length} bytes; the limit is ${MAX_FILE_BYTES}`);
  return data;
}
