import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../errors/toolgate.errors';
import { type HostTester, hostTester } from './host.tester';
import { runTool } from './tool.tester';

/** A built plugin as an author ships it: CommonJS, defineTool from the sdk (a peer dependency the host provides). */
const PLUGIN = `const { defineTool } = require('@toolgate/sdk');
const object = (properties, required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });
let calls = 0;
exports.tools = [
  defineTool({
    name: 'double', title: 'Double', description: 'Doubles a number. Do not use it for anything else.',
    inputSchema: object({ n: { type: 'number' } }), outputSchema: object({ doubled: { type: 'number' } }),
    examples: [{ query: 'double 2', arguments: { n: 2 }, output: { doubled: 4 } }, { query: 'double 3', arguments: { n: 3 }, output: { doubled: 7 } }],
    permissions: { scopes: [], risk: 'read' },
    run: async ({ n }, ctx) => { calls++; ctx.logger.info('doubling', { n }); return { doubled: n * 2 }; },
  }),
  defineTool({
    name: 'calls', title: 'Calls', description: 'How many times double ran in this process.',
    inputSchema: object({}), outputSchema: object({ calls: { type: 'number' } }),
    examples: [{ query: 'how many calls', arguments: {} }], permissions: { scopes: [], risk: 'read' },
    run: async () => ({ calls }),
  }),
  defineTool({
    name: 'spin', title: 'Spin', description: 'Never returns and ignores its abort signal.',
    inputSchema: object({}), outputSchema: object({}), examples: [{ query: 'spin', arguments: {} }],
    permissions: { scopes: [], risk: 'read' }, limits: { timeoutMs: 300 },
    run: () => { for (;;) {} },
  }),
  defineTool({
    name: 'escape', title: 'Escape', description: 'Tries what an undeclared tool may not do.',
    inputSchema: object({ how: { type: 'string' }, url: { type: 'string' }, path: { type: 'string' } }, ['how']), outputSchema: { type: 'object' },
    examples: [{ query: 'escape', arguments: { how: 'env' } }], permissions: { scopes: [], risk: 'read' },
    run: async ({ how, url, path }) => {
      if (how === 'env') return { env: Object.keys(process.env) };
      if (how === 'fetch') return { status: (await fetch(url)).status };
      if (how === 'write') { require('node:fs').writeFileSync(path, 'pwned'); return {}; }
      if (how === 'spawn') return { out: require('node:child_process').execSync('id').toString() };
      if (how === 'read') return { text: require('node:fs').readFileSync(path, 'utf8') };
      return {};
    },
  }),
  defineTool({
    name: 'liar', title: 'Liar', description: 'Returns what its outputSchema does not allow, or far too much.',
    inputSchema: object({ bytes: { type: 'number' } }, []), outputSchema: object({ ok: { type: 'boolean' } }, ['ok']),
    examples: [{ query: 'lie', arguments: {} }], permissions: { scopes: [], risk: 'read' }, limits: { maxOutputBytes: 4096 },
    run: async ({ bytes }) => (bytes ? { ok: true, padding: 'x'.repeat(bytes) } : { ok: 'yes' }),
  }),
];`;

let dir: string;
let kit: HostTester;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-host-tester-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@acme/host-fixture', version: '1.0.0', toolgate: { sdk: '^0.1.0', tools: 'index.js' } }));
  writeFileSync(join(dir, 'index.js'), PLUGIN);
  writeFileSync(join(dir, 'secret.txt'), 'not for plugins');
  server = createServer((_req, res) => res.end('reached')).listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  process.env.TOOLGATE_HOST_TESTER_SECRET = 'hunter2';
  kit = await hostTester(dir);
});

afterAll(async () => {
  await kit?.close();
  server?.close();
  delete process.env.TOOLGATE_HOST_TESTER_SECRET;
  rmSync(dir, { recursive: true, force: true });
});

describe('hostTester: a built plugin run the way a gateway runs it', () => {
  it('runs a call in a worker process and keeps what the tool logged', async () => {
    expect(await kit.call('double', { n: 21 })).toEqual({ doubled: 42 });
    expect(kit.logs).toContainEqual({ tool: 'double', level: 'info', message: 'doubling', fields: { n: 21 } });
    // The worker is not the test's process: the test's copy of the module never ran.
    expect(await runTool(kit.tools.get('calls') as never, {})).toEqual({ calls: 0 });
    expect(await kit.call('calls', {})).toEqual({ calls: 1 });
  });

  it('refuses arguments the host refuses, before the tool runs, where the in-process kit lets them through', async () => {
    const before = await kit.call('calls', {});
    const refused = await kit.failure('double', { n: '21', extra: true });
    expect(refused.code).toBe(ErrorCode.INVALID_ARGUMENTS);
    expect(refused.details.map((d) => d.path)).toEqual(expect.arrayContaining(['/arguments/n', '/arguments/extra']));
    expect(await kit.call('calls', {})).toEqual(before);
    expect(await runTool(kit.tools.get('double') as never, { n: '21' })).toEqual({ doubled: 42 });
  });

  it('ends a call past its timeoutMs with TIMEOUT and replaces a worker that ignores its abort', async () => {
    const timedOut = await kit.failure('spin', {});
    expect(timedOut.code).toBe(ErrorCode.TIMEOUT);
    expect(timedOut.message).toContain('300 ms');
    expect((await kit.failure('spin', {}, { timeoutMs: 100 })).message).toContain('100 ms');
    expect(await kit.call('double', { n: 1 })).toEqual({ doubled: 2 });
  });

  it('gives an undeclared tool no network, no writes, no processes, no files outside its package and none of the host environment', async () => {
    expect((await kit.failure('escape', { how: 'fetch', url })).code).toBe(ErrorCode.FORBIDDEN);
    const target = join(tmpdir(), `toolgate-host-tester-${process.pid}.txt`);
    expect((await kit.failure('escape', { how: 'write', path: target })).message).toMatch(/restricted/);
    expect(existsSync(target)).toBe(false);
    expect((await kit.failure('escape', { how: 'spawn' })).message).toMatch(/restricted/);
    expect((await kit.failure('escape', { how: 'read', path: '/etc/passwd' })).message).toMatch(/restricted/);
    const { env } = (await kit.call('escape', { how: 'env' })) as { env: string[] };
    expect(env).not.toContain('TOOLGATE_HOST_TESTER_SECRET');
  });

  it('checks outputs against the outputSchema and limits.maxOutputBytes', async () => {
    const wrong = await kit.failure('liar', {});
    expect(wrong.code).toBe(ErrorCode.TOOL_FAILED);
    expect(wrong.details).toContainEqual(expect.objectContaining({ path: '/output/ok' }));
    expect((await kit.failure('liar', { bytes: 10_000 })).code).toBe(ErrorCode.OUTPUT_TOO_LARGE);
  });

  it('runs every example through the host and names the ones that fail', async () => {
    const problems = await kit.examples();
    expect(problems.double).toEqual([expect.objectContaining({ path: '/examples/1/output', message: expect.stringContaining('"doubled":6') })]);
    expect(problems.spin?.[0].message).toContain('did not finish within 300 ms');
    expect(problems.calls).toBeUndefined();
  });

  it('refuses code that changed after it was loaded, as a gateway refuses a tampered install', async () => {
    const tampered = await hostTester(dir);
    try {
      writeFileSync(join(dir, 'index.js'), `${PLUGIN}\n// changed`);
      expect((await tampered.failure('double', { n: 1 })).code).toBe(ErrorCode.PLUGIN_INVALID);
    } finally {
      writeFileSync(join(dir, 'index.js'), PLUGIN);
      await tampered.close();
    }
  });

  it('refuses a package the host refuses, naming the field', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'toolgate-host-tester-bad-'));
    try {
      writeFileSync(join(bad, 'package.json'), JSON.stringify({ name: '@acme/bad', version: '1.0.0', toolgate: { sdk: '^9.0.0', tools: 'index.js' } }));
      writeFileSync(join(bad, 'index.js'), 'exports.tools = [];');
      await expect(hostTester(bad)).rejects.toMatchObject({ code: ErrorCode.PLUGIN_INVALID, details: [expect.objectContaining({ path: '/toolgate/sdk' })] });
      writeFileSync(join(bad, 'package.json'), JSON.stringify({ name: '@acme/bad', version: '1.0.0', toolgate: { sdk: '^0.1.0', tools: 'index.js' } }));
      writeFileSync(join(bad, 'index.js'), "exports.tools = [{ name: 'Not A Name' }];");
      await expect(hostTester(bad)).rejects.toMatchObject({ code: ErrorCode.PLUGIN_INVALID, details: expect.arrayContaining([expect.objectContaining({ path: '/tools/0/name' })]) });
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
