import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { defineTool } from '@toolgate/sdk';
import { fsError, LINKS_NOTE, openFolder, openTenantRoot, relativePath, within } from './files.sandbox';

export interface ListArgs {
  path?: string;
  recursive?: boolean;
  maxEntries?: number;
}

type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface ListOutput {
  path: string;
  entries: { path: string; name: string; type: EntryType; size: number; modifiedAt: string }[];
  truncated: boolean;
}

export const listTool = defineTool<ListArgs, ListOutput>({
  name: 'list',
  title: 'List files in the sandbox',
  description:
    "Lists the files and folders in the caller's private sandbox folder (or a sub-folder of it), optionally recursively, with type, size and " +
    'modification time: "what files do I have", "show the contents of the reports folder", "did the export get saved". Symbolic links are listed ' +
    `but not followed; listing a folder through one is refused. ${LINKS_NOTE} Do NOT use it to read a file's content (use files/read) or to create files (use files/write).`,
  category: ['files', 'storage'],
  tags: ['list files', 'directory listing', 'ls', 'folder contents', 'sandbox', 'file system'],
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', maxLength: 512, default: '.', description: 'Folder to list, relative to the sandbox; default "." (the sandbox root).' },
      recursive: { type: 'boolean', default: false, description: 'Also list the content of sub-folders (default false).' },
      maxEntries: { type: 'integer', minimum: 1, maximum: 10000, default: 1000, description: 'Stop after this many entries (default 1000).' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The listed folder, relative to the sandbox ("" is the root).' },
      entries: {
        type: 'array',
        description: 'Entries sorted by path.',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'Path relative to the sandbox, usable with files/read.' },
            name: { type: 'string', description: 'File or folder name.' },
            type: { type: 'string', enum: ['file', 'directory', 'symlink', 'other'], description: 'Kind of entry.' },
            size: { type: 'integer', description: 'Size in bytes (0 for folders).' },
            modifiedAt: { type: 'string', format: 'date-time', description: 'Last modification time.' },
          },
          required: ['path', 'name', 'type', 'size', 'modifiedAt'],
          additionalProperties: false,
        },
      },
      truncated: { type: 'boolean', description: 'Whether maxEntries stopped the listing early.' },
    },
    required: ['path', 'entries', 'truncated'],
    additionalProperties: false,
  },
  examples: [
    { query: 'What files do I have?', arguments: {} },
    { query: 'Show everything under notes, including sub-folders', arguments: { path: 'notes', recursive: true } },
  ],
  permissions: { scopes: ['fs:read'], risk: 'read' },
  limits: { timeoutMs: 5000, maxConcurrency: 16, retries: 1, idempotent: true },
  async run(args, ctx) {
    const rel = relativePath(args.path ?? '.', '/path');
    const maxEntries = args.maxEntries ?? 1000;
    const entries: ListOutput['entries'] = [];
    let truncated = false;
    const root = await openTenantRoot(ctx);
    try {
      // Each folder is opened from the tenant's folder component by component (see files.sandbox.ts), so a
      // sub-folder swapped for a link while the listing runs is refused, never descended into.
      const pending = [rel];
      while (pending.length > 0 && !truncated) {
        ctx.signal.throwIfAborted();
        const folder = pending.shift() as string;
        // A sub-folder that became a link (or vanished) since it was listed is skipped; the asked folder must open.
        const dir = await openFolder(root, folder, '/path').catch((error: unknown) => {
          if (folder === rel) throw error;
          return undefined;
        });
        if (!dir) continue;
        try {
          const children = (await readdir(within(dir, '.'), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
          for (const child of children) {
            if (entries.length === maxEntries) {
              truncated = true;
              break;
            }
            const info = await lstat(within(dir, child.name)).catch(() => undefined);
            if (!info) continue;
            const childPath = folder ? `${folder}/${child.name}` : child.name;
            entries.push({ path: childPath, name: child.name, type: typeOf(child), size: child.isFile() ? info.size : 0, modifiedAt: info.mtime.toISOString() });
            // Dirent describes the link itself, so a symlinked folder is never descended into.
            if (args.recursive && child.isDirectory()) pending.push(childPath);
          }
        } finally {
          await dir.close();
        }
      }
    } catch (error) {
      throw fsError(error, rel, '/path', ctx.signal);
    } finally {
      await root.close();
    }
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { path: rel, entries, truncated };
  },
});

function typeOf(entry: Dirent): EntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  return entry.isFile() ? 'file' : 'other';
}
