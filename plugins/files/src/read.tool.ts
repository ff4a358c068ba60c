import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { defineTool } from '@toolgate/sdk';
import { fsError, invalid, LINKS_NOTE, MAX_FILE_BYTES, openFolder, openTenantRoot, PATH_DESCRIPTION, relativePath, splitPath, within } from './files.sandbox';

export interface ReadArgs {
  path: string;
  encoding?: 'utf8' | 'base64';
  maxBytes?: number;
}

export interface ReadOutput {
  path: string;
  content: string;
  encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  modifiedAt: string;
}

export const readTool = defineTool<ReadArgs, ReadOutput>({
  name: 'read',
  title: 'Read a file from the sandbox',
  description:
    "Returns the content of a file in the caller's private sandbox folder, as UTF-8 text or base64 for binary files, with its size and modification time: " +
    '"open notes/todo.txt", "what did I save in report.md", "load the CSV I exported earlier". Reads at most maxBytes (default and limit 1 MiB) and says ' +
    `when the content was truncated. Only files inside the tenant's sandbox are reachable; absolute paths and ".." escapes are rejected. ${LINKS_NOTE} ` +
    'Do NOT use it to find out which files exist (use files/list), to save content (use files/write), or to download a web ' +
    'page (use http/fetch).',
  category: ['files', 'storage'],
  tags: ['read file', 'open file', 'load', 'file content', 'sandbox', 'file system'],
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 512, description: PATH_DESCRIPTION },
      encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8', description: 'utf8 text (default) or base64 for binary files.' },
      maxBytes: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_FILE_BYTES,
        default: MAX_FILE_BYTES,
        description: 'Read at most this many bytes from the start of the file (default 1 MiB).',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the sandbox.' },
      content: { type: 'string', description: 'The content, decoded as asked.' },
      encoding: { type: 'string', enum: ['utf8', 'base64'], description: 'Encoding of content.' },
      size: { type: 'integer', description: 'Size of the whole file in bytes.' },
      truncated: { type: 'boolean', description: 'Whether only the first maxBytes were returned.' },
      modifiedAt: { type: 'string', format: 'date-time', description: 'Last modification time.' },
    },
    required: ['path', 'content', 'encoding', 'size', 'truncated', 'modifiedAt'],
    additionalProperties: false,
  },
  examples: [
    { query: 'Show me what is in notes/todo.txt', arguments: { path: 'notes/todo.txt' } },
    { query: 'Give me the first 100 bytes of notes/todo.txt', arguments: { path: 'notes/todo.txt', maxBytes: 100 } },
  ],
  permissions: { scopes: ['fs:read'], risk: 'read' },
  limits: { timeoutMs: 5000, maxConcurrency: 16, retries: 1, idempotent: true },
  async run(args, ctx) {
    const rel = relativePath(args.path, '/path');
    const encoding = args.encoding ?? 'utf8';
    const maxBytes = Math.min(args.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES);
    const { folder, name } = splitPath(rel);
    if (name === '') throw invalid('/path', 'give a file name, not the sandbox folder itself');
    let data: Buffer;
    let size: number;
    let modifiedAt: Date;
    const root = await openTenantRoot(ctx);
    try {
      ctx.signal.throwIfAborted();
      const dir = await openFolder(root, folder, '/path');
      // O_NOFOLLOW refuses a link at the last component; O_NONBLOCK keeps a FIFO from blocking the open.
      const handle = await open(within(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).finally(() => dir.close());
      try {
        const info = await handle.stat();
        if (!info.isFile()) throw invalid('/path', `"${rel}" is not a file`);
        size = info.size;
        modifiedAt = info.mtime;
        data = Buffer.alloc(Math.min(size, maxBytes));
        const { bytesRead } = await handle.read(data, 0, data.length, 0);
        data = data.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw fsError(error, rel, '/path', ctx.signal);
    } finally {
      await root.close();
    }
    const truncated = size > data.length;
    return { path: rel, content: decode(data, encoding, truncated), encoding, size, truncated, modifiedAt: modifiedAt.toISOString() };
  },
});

function decode(data: Buffer, encoding: 'utf8' | 'base64', truncated: boolean): string {
  if (encoding === 'base64') return data.toString('base64');
  try {
    // stream: true holds back a character cut in half by truncation instead of failing on it.
    return new TextDecoder('utf-8', { fatal: true }).decode(data, { stream: truncated });
  } catch (error) {
    throw invalid('/encoding', 'the file is not UTF-8 text; read it with encoding "base64"', error);
  }
}
