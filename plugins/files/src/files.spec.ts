import { ErrorCode, type ToolContext } from '@toolgate/sdk';
import { testContext, toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { byName, call, failure, conformance } = toolTester(tools);

const ctx = (signal?: AbortSignal) => testContext({ signal });
async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const sandbox = mkdtempSync(path.join(tmpdir(), 'toolgate-files-'));
const outside = mkdtempSync(path.join(tmpdir(), 'toolgate-outside-'));
const previous = process.env.TOOLGATE_SANDBOX_DIR;
process.env.TOOLGATE_SANDBOX_DIR = sandbox;
afterAll(() => {
  if (previous === undefined) delete process.env.TOOLGATE_SANDBOX_DIR;
  else process.env.TOOLGATE_SANDBOX_DIR = previous;
  rmSync(sandbox, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const tenantDir = () => path.join(sandbox, testContext().principal.tenant);
const as = (tenant: string): ToolContext => ({ ...ctx(), principal: { tenant, subject: 's' } });

it('every files tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

describe('files/write, read, list', () => {
  it('round-trips text and binary content inside the tenant folder', async () => {
    const written = await call('write', { path: 'docs/a/hello.txt', content: 'héllo\n' });
    expect(written).toMatchObject({ path: 'docs/a/hello.txt', bytesWritten: 7, size: 7, created: true });
    expect(readFileSync(path.join(tenantDir(), 'docs/a/hello.txt'), 'utf8')).toBe('héllo\n');
    expect(await call('read', { path: './docs//a/hello.txt' })).toMatchObject({ content: 'héllo\n', size: 7, truncated: false, encoding: 'utf8' });

    const bytes = Buffer.from([0, 255, 1, 254]);
    await call('write', { path: 'bin/data.bin', content: bytes.toString('base64'), encoding: 'base64' });
    expect(await call('read', { path: 'bin/data.bin', encoding: 'base64' })).toMatchObject({ content: bytes.toString('base64'), size: 4 });
  });

  it('refuses to replace a file unless told, and appends within the size limit', async () => {
    await call('write', { path: 'log.txt', content: 'one\n' });
    await expectInvalid('write', { path: 'log.txt', content: 'two\n' }, '/path');
    expect(await call('write', { path: 'log.txt', content: 'two\n', ifExists: 'append' })).toMatchObject({ size: 8, created: false, bytesWritten: 4 });
    expect((await call('read', { path: 'log.txt' })).content).toBe('one\ntwo\n');
    expect(await call('write', { path: 'log.txt', content: 'three\n', ifExists: 'overwrite' })).toMatchObject({ size: 6 });
  });

  it('enforces the size limit', async () => {
    await expectInvalid('write', { path: 'big.txt', content: 'x'.repeat(1024 * 1024 + 1) }, '/content');
    await expectInvalid('write', { path: 'bad.bin', content: 'not base64!', encoding: 'base64' }, '/content');
  });

  it('truncates reads at maxBytes without splitting a character, and refuses binary as text', async () => {
    await call('write', { path: 'accents.txt', content: 'aé' });
    expect(await call('read', { path: 'accents.txt', maxBytes: 2 })).toMatchObject({ content: 'a', truncated: true, size: 3 });
    await call('write', { path: 'raw.bin', content: Buffer.from([0xff, 0xfe]).toString('base64'), encoding: 'base64' });
    await expectInvalid('read', { path: 'raw.bin' }, '/encoding');
  });

  it.each(['/etc/passwd', '../t2/secret.txt', 'a/../../x.txt', '..', 'C:/windows/win.ini', 'a\\..\\b'])('rejects the path %s', async (p) => {
    await expectInvalid('write', { path: p, content: 'x', ifExists: 'overwrite' }, '/path');
    await expectInvalid('read', { path: p }, '/path');
  });

  it('rejects symlink escapes for read, write and list', async () => {
    writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    mkdirSync(tenantDir(), { recursive: true });
    symlinkSync(outside, path.join(tenantDir(), 'escape-dir'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(tenantDir(), 'escape-file'));

    await expectInvalid('read', { path: 'escape-dir/secret.txt' }, '/path');
    await expectInvalid('read', { path: 'escape-file' }, '/path');
    await expectInvalid('list', { path: 'escape-dir' }, '/path');
    await expectInvalid('write', { path: 'escape-dir/new.txt', content: 'x' }, '/path');
    await expectInvalid('write', { path: 'escape-dir/deeper/new.txt', content: 'x' }, '/path');
    await expectInvalid('write', { path: 'escape-file', content: 'overwritten', ifExists: 'overwrite' }, '/path');
    await expectInvalid('write', { path: 'escape-file', content: 'appended', ifExists: 'append' }, '/path');

    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'deeper'))).toBe(false);
  });

  it('keeps tenants apart, whatever their names', async () => {
    await call('write', { path: 'mine.txt', content: 'private' }, as('acme'));
    await expectInvalid('read', { path: 'mine.txt' }, '/path');
    await call('write', { path: 'x.txt', content: 'x' }, as('..'));
    await call('write', { path: 'y.txt', content: 'y' }, as('a/b'));
    expect(existsSync(path.join(path.dirname(sandbox), 'x.txt'))).toBe(false);
    expect(realpathSync(path.join(sandbox, '%2E%2E', 'x.txt'))).toBe(path.join(realpathSync(sandbox), '%2E%2E', 'x.txt'));
    expect(existsSync(path.join(sandbox, 'a%2Fb', 'y.txt'))).toBe(true);
  });

  it('lists entries sorted, recursively on request, without following symlinks', async () => {
    const top = (await call('list', {})) as { entries: { path: string; type: string }[] };
    expect(top.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'docs', type: 'directory' }),
        expect.objectContaining({ path: 'log.txt', type: 'file', size: 6 }),
        expect.objectContaining({ path: 'escape-dir', type: 'symlink' }),
      ]),
    );
    expect(top.entries.some((e) => e.path.startsWith('docs/'))).toBe(false);
    const deep = (await call('list', { path: 'docs', recursive: true })) as { entries: { path: string }[] };
    expect(deep.entries.map((e) => e.path)).toEqual(['docs/a', 'docs/a/hello.txt']);
    const all = (await call('list', { recursive: true })) as { entries: { path: string }[] };
    expect(all.entries.some((e) => e.path.startsWith('escape-dir/'))).toBe(false);
    expect(await call('list', { maxEntries: 2 })).toMatchObject({ truncated: true });
    await expectInvalid('list', { path: 'log.txt' }, '/path');
    await expectInvalid('list', { path: 'missing' }, '/path');
  });

  it('refuses links that point inside the sandbox too, at any component', async () => {
    mkdirSync(path.join(tenantDir(), 'real/sub'), { recursive: true });
    writeFileSync(path.join(tenantDir(), 'real/sub/inner.txt'), 'inner');
    symlinkSync('real', path.join(tenantDir(), 'alias'));
    symlinkSync('sub/inner.txt', path.join(tenantDir(), 'real/inner-link'));
    for (const p of ['alias/sub/inner.txt', 'real/inner-link']) {
      const error = await failure('read', { path: p });
      expect({ code: error.code, path: error.details[0].path, message: error.message }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, path: '/path', message: expect.stringMatching(/symbolic link/) });
    }
    await expectInvalid('write', { path: 'alias/sub/new.txt', content: 'x' }, '/path');
    await expectInvalid('list', { path: 'alias/sub' }, '/path');
    expect(existsSync(path.join(tenantDir(), 'real/sub/new.txt'))).toBe(false);
    expect((await call('read', { path: 'real/sub/inner.txt' })).content).toBe('inner');
  });

  it('declares write risk and scopes', () => {
    expect(byName('write').permissions).toEqual({ scopes: ['fs:write'], risk: 'write' });
    expect(byName('read').permissions.risk).toBe('read');
    expect(byName('list').permissions.risk).toBe('read');
  });
});

/*
 * The reported race: a folder on the caller's path is swapped for a symlink to the outside, and back, as fast as
 * another thread can, while writes, reads and listings run through it. Not one may touch the outside.
 */
const SWAPPER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { folder, aside, outside, stop } = workerData;
const halt = new Int32Array(stop);
let swaps = 0;
while (Atomics.load(halt, 0) === 0) {
  try {
    fs.renameSync(folder, aside);
    fs.symlinkSync(outside, folder);
    swaps++;
  } catch {}
  try { fs.unlinkSync(folder); } catch {}
  // A write may have created the folder anew while it was missing: keep the original.
  try { fs.rmSync(folder, { recursive: true, force: true }); } catch {}
  try { fs.renameSync(aside, folder); } catch {}
}
require('node:worker_threads').parentPort.postMessage(swaps);
`;

describe('a folder swapped for a symlink while calls run', () => {
  const tenant = as('racer');
  const root = () => path.join(sandbox, 'racer');
  let target: string;

  beforeAll(() => {
    target = mkdtempSync(path.join(tmpdir(), 'toolgate-race-outside-'));
    writeFileSync(path.join(target, 'secret.txt'), 'outside secret');
    writeFileSync(path.join(target, 'only-outside.txt'), 'outside');
    mkdirSync(path.join(root(), 'box'), { recursive: true });
    writeFileSync(path.join(root(), 'box', 'secret.txt'), 'inside');
  });
  afterAll(() => rmSync(target, { recursive: true, force: true }));

  async function whileSwapping(calls: () => Promise<void>): Promise<number> {
    const stop = new SharedArrayBuffer(4);
    const swapper = new Worker(SWAPPER, { eval: true, workerData: { folder: path.join(root(), 'box'), aside: path.join(root(), 'box-aside'), outside: target, stop } });
    const swaps = new Promise<number>((resolve, reject) => {
      swapper.once('message', resolve);
      swapper.once('error', reject);
    });
    try {
      await calls();
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
    }
    return swaps;
  }

  it('lands 0 of 600 writes, and shows 0 of 300 reads and listings, outside the sandbox', async () => {
    const outcomes = { ok: 0, refused: 0, leaked: [] as string[] };
    const record = async (attempt: Promise<unknown>, leaked: (value: unknown) => boolean, label: string) => {
      try {
        if (leaked(await attempt)) outcomes.leaked.push(label);
        outcomes.ok++;
      } catch (error) {
        expect((error as { code?: string }).code).toBe(ErrorCode.INVALID_ARGUMENTS);
        outcomes.refused++;
      }
    };
    const swaps = await whileSwapping(async () => {
      for (let round = 0; round < 150; round++) {
        await Promise.all([
          ...[0, 1, 2, 3].map((i) => record(call('write', { path: `box/w${round}-${i}.txt`, content: 'x', ifExists: 'overwrite' }, tenant), () => false, 'write')),
          record(call('read', { path: 'box/secret.txt' }, tenant), (out) => (out as { content: string }).content !== 'inside', `read ${round}`),
          record(call('list', { path: 'box' }, tenant), (out) => (out as { entries: { name: string }[] }).entries.some((e) => e.name === 'only-outside.txt'), `list ${round}`),
        ]);
      }
    });
    expect(readdirSync(target).sort()).toEqual(['only-outside.txt', 'secret.txt']);
    expect(readFileSync(path.join(target, 'secret.txt'), 'utf8')).toBe('outside secret');
    expect(outcomes.leaked).toEqual([]);
    // The race did happen: some calls met the link (refused), some went through the real folder.
    expect(swaps).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.ok).toBeGreaterThan(0);
  }, 120_000);
});
