import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import type { TaskImage } from '@toolgate/planner';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { InvalidArgumentError, Option } from 'commander';
import type { CliCatalog } from './cli.catalog';
import type { CliCore } from './cli.core';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function fraction(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
}

export function kList(value: string): number[] {
  const ks = value.split(',').map((v) => positiveInt(v.trim()));
  return [...new Set(ks)].sort((a, b) => a - b);
}

/** `--key`: the commands that act for a caller. */
export const keyOption = (): Option => new Option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)');

/** `--image`: the commands that take a task. */
export const imageOption = (): Option => new Option('--image <file>', 'an image that is part of the task (repeatable)').argParser((value: string, all: string[] = []) => [...all, value]);

const MIME_OF = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', tiff: 'image/tiff', bmp: 'image/bmp', webp: 'image/webp' } as const;

/** Reads the `--image` files of a task; the type comes from the bytes, and the describer checks it again. */
export async function readTaskImages(paths: readonly string[]): Promise<TaskImage[]> {
  const { sniffImageFormat } = await import('@toolgate/planner');
  return Promise.all(
    paths.map(async (path, index) => {
      const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read image ${path}: ${error.code ?? error.message}`, [{ path: `/images/${index}`, message: 'unreadable file' }], error);
      });
      const format = sniffImageFormat(bytes);
      return { mimeType: format ? MIME_OF[format] : 'application/octet-stream', data: bytes.toString('base64'), name: basename(path) };
    }),
  );
}

/** Runs `work` on what was opened and closes it however the work ends. */
async function closing<C extends { close(): Promise<void> }, T>(opened: C, work: (opened: C) => Promise<T>): Promise<T> {
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

/**
 * Opens the registry and index in-process (no HTTP), acting as the principal of --key or the local admin.
 * The core is imported here, not at the top: `toolgate --help` and the eval commands never load the app.
 */
export async function withCore<T>(key: string | undefined, work: (core: CliCore) => Promise<T>): Promise<T> {
  const { loadConfig } = await import('../config/app.config');
  const config = loadConfig();
  const { openCliCore } = await import('./cli.core');
  return closing(await openCliCore(config, key), work);
}

/** Opens the catalog alone (see openCliCatalog), for the commands that only read it. */
export async function withCatalog<T>(key: string | undefined, work: (catalog: CliCatalog) => Promise<T>): Promise<T> {
  const { loadCatalogConfig } = await import('../config/catalog.config');
  const config = loadCatalogConfig();
  const { openCliCatalog } = await import('./cli.catalog');
  return closing(await openCliCatalog(config, key), work);
}

/**
 * A dataset path of `--tools`, `--queries` or `--dataset`: as given when it exists (relative to the
 * current folder), else under $TOOLGATE_DATASETS (the folder holding the evaluation sets), so the
 * same command works from any checkout. Missing, the error names every place it looked.
 */
export function datasetPath(path: string, flag: string, env: NodeJS.ProcessEnv = process.env): string {
  const here = resolve(path);
  if (existsSync(here)) return here;
  const root = env.TOOLGATE_DATASETS;
  const there = root && !isAbsolute(path) ? resolve(root, path) : undefined;
  if (there && existsSync(there)) return there;
  const looked = [here, ...(there ? [there] : [])].join(' and ');
  const hint = root ? '' : '; set TOOLGATE_DATASETS to the folder holding the evaluation sets to pass paths relative to it';
  throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${flag} ${path} does not exist: looked at ${looked}${hint}`, [{ path: flag, message: 'no such file or folder' }]);
}
