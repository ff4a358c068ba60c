import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * Issue 10, item 9: the bundled files and http tools, attacked over HTTP by a tenant admin who may run them
 * (`**`). The files sandbox is TOOLGATE_SANDBOX_DIR/<tenant>; a local process swaps a folder of the caller's
 * for a symlink to the outside while the caller's plans write, read and list through it. The http tools may
 * name any host (TOOLGATE_HTTP_ALLOWLIST=*) on any port, and the operator allows exactly one private address,
 * 127.0.0.2 (a test server that redirects); the gateway itself listens on 127.0.0.1.
 */

const EXECUTE_PLAN = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status steps { id tool status output error { code message } } } }';

interface Step {
  id: string;
  tool: string;
  status: string;
  output: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
}

async function executePlan(url: string, steps: { id: string; tool: string; arguments: Record<string, unknown> }[]): Promise<Step[]> {
  const response = await graphql<{ executePlan: { steps: Step[] } }>(url, EXECUTE_PLAN, { key: KEYS.acmeAdmin, variables: { plan: { steps } } });
  if (!response.data?.executePlan) throw new Error(`executePlan failed: ${JSON.stringify(response.errors)}`);
  return response.data.executePlan.steps;
}

/** Swaps `folder` for a symlink to `outside` and back, as fast as it can, until told to stop. */
const SWAPPER = `
const { workerData, parentPort } = require('node:worker_threads');
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
  try { fs.rmSync(folder, { recursive: true, force: true }); } catch {}
  try { fs.renameSync(aside, folder); } catch {}
}
parentPort.postMessage(swaps);
`;

let server: TwoTenantServer;
let redirector: Server;
let redirectorBase: string;
let gatewayPort: number;
let work: string;
let outside: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolgate-sandboxes-'));
  outside = mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'outside secret');
  writeFileSync(join(outside, 'only-outside.txt'), 'outside');

  // On Linux all of 127/8 is loopback: this server is "the allowed internal service", the gateway is not.
  redirector = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('internal service');
    else res.writeHead(302, { location: url.searchParams.get('to') ?? '/ok' }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.2', resolve));
  redirectorBase = `http://127.0.0.2:${(redirector.address() as AddressInfo).port}`;

  server = await startTwoTenantServer({
    TOOLGATE_SANDBOX_DIR: join(work, 'sandbox'),
    TOOLGATE_HTTP_ALLOWLIST: '*',
    TOOLGATE_HTTP_ALLOW_PRIVATE: '127.0.0.2/32',
    TOOLGATE_HTTP_ALLOW_PORTS: '1-65535',
  });
  gatewayPort = Number(new URL(server.url).port);
});

afterAll(async () => {
  await server?.stop();
  redirector?.closeAllConnections();
  await new Promise((resolve) => redirector?.close(resolve));
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('files/* under a symlink race', () => {
  it('lands no write, and shows no read or listing, outside the sandbox while a folder is swapped for a link', async () => {
    const seeded = await executePlan(server.url, [{ id: 'seed', tool: 'files/write', arguments: { path: 'box/secret.txt', content: 'inside', ifExists: 'overwrite' } }]);
    expect(seeded[0].status).toBe('SUCCEEDED');
    const tenantDir = join(work, 'sandbox', 'acme');

    const stop = new SharedArrayBuffer(4);
    const swapper = new Worker(SWAPPER, { eval: true, workerData: { folder: join(tenantDir, 'box'), aside: join(tenantDir, 'box.aside'), outside, stop } });
    const swaps = new Promise<number>((resolve, reject) => {
      swapper.once('message', resolve);
      swapper.once('error', reject);
    });
    const steps: Step[] = [];
    try {
      for (let round = 0; round < 12; round++) {
        const plans = [0, 1].map((half) =>
          executePlan(server.url, [
            ...Array.from({ length: 14 }, (_, i) => ({ id: `w${i}`, tool: 'files/write', arguments: { path: `box/r${round}-${half}-${i}.txt`, content: 'written', ifExists: 'overwrite' } })),
            ...Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, tool: 'files/read', arguments: { path: 'box/secret.txt' } })),
            ...Array.from({ length: 3 }, (_, i) => ({ id: `l${i}`, tool: 'files/list', arguments: { path: 'box' } })),
          ]),
        );
        for (const plan of await Promise.all(plans)) steps.push(...plan);
      }
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
    }
    expect(await swaps).toBeGreaterThan(0);

    expect(readdirSync(outside).sort()).toEqual(['only-outside.txt', 'secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    const leaked = steps.filter((s) => JSON.stringify(s.output ?? {}).match(/outside secret|only-outside/));
    expect(leaked).toEqual([]);
    // The race was run: some calls met the link and were refused, others went through the real folder.
    expect(steps.filter((s) => s.tool.startsWith('files/write@')).length).toBe(12 * 2 * 14);
    expect(steps.some((s) => s.status === 'FAILED' && /symbolic link/.test(s.error?.message ?? ''))).toBe(true);
    expect(steps.some((s) => s.status === 'SUCCEEDED' && s.tool.startsWith('files/write@'))).toBe(true);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  }, 180_000);

  it('refuses a symlink planted inside the sandbox, even one that points inside it', async () => {
    const tenantDir = join(work, 'sandbox', 'acme');
    mkdirSync(join(tenantDir, 'real'), { recursive: true });
    writeFileSync(join(tenantDir, 'real', 'note.txt'), 'mine');
    symlinkSync(outside, join(tenantDir, 'door'));
    symlinkSync('real', join(tenantDir, 'alias'));
    const steps = await executePlan(server.url, [
      { id: 'out', tool: 'files/read', arguments: { path: 'door/secret.txt' } },
      { id: 'outDeep', tool: 'files/write', arguments: { path: 'door/new/dropped.txt', content: 'x' } },
      { id: 'outList', tool: 'files/list', arguments: { path: 'door', recursive: true } },
      { id: 'in', tool: 'files/read', arguments: { path: 'alias/note.txt' } },
      { id: 'real', tool: 'files/read', arguments: { path: 'real/note.txt' } },
    ]);
    expect(steps.map((s) => [s.id, s.status, s.error?.code ?? null])).toEqual([
      ['out', 'FAILED', 'INVALID_ARGUMENTS'],
      ['outDeep', 'FAILED', 'INVALID_ARGUMENTS'],
      ['outList', 'FAILED', 'INVALID_ARGUMENTS'],
      ['in', 'FAILED', 'INVALID_ARGUMENTS'],
      ['real', 'SUCCEEDED', null],
    ]);
    expect(readdirSync(outside).sort()).toEqual(['only-outside.txt', 'secret.txt']);
  });
});

describe('http/* against the gateway itself', () => {
  it('reaches the one internal address the operator allowed', async () => {
    const [step] = await executePlan(server.url, [{ id: 'ok', tool: 'http/fetch', arguments: { url: `${redirectorBase}/ok` } }]);
    expect(step).toMatchObject({ status: 'SUCCEEDED', output: { status: 200, body: 'internal service' } });
  });

  it('refuses the gateway by name, by address in every spelling, and through a redirect from the allowed server', async () => {
    const own = (host: string) => `http://${host}:${gatewayPort}/health`;
    const attacks = {
      name: own('localhost'),
      nameDot: own('localhost.'),
      sub: own('acme.localhost'),
      dotted: own('127.0.0.1'),
      decimal: own('2130706433'),
      hex: own('0x7f.1'),
      hexWhole: own('0x7f000001'),
      octal: own('0177.0.0.01'),
      short: own('127.1'),
      mapped: own('[::ffff:127.0.0.1]'),
      v6: own('[::1]'),
      unspecified: own('0.0.0.0'),
      redirect: `${redirectorBase}/go?to=${encodeURIComponent(own('127.0.0.1'))}`,
      redirectDecimal: `${redirectorBase}/go?to=${encodeURIComponent(own('2130706433'))}`,
      redirectName: `${redirectorBase}/go?to=${encodeURIComponent(own('localhost'))}`,
      metadata: `${redirectorBase}/go?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
    };
    const steps = await executePlan(
      server.url,
      Object.entries(attacks).map(([id, url]) => ({ id, tool: 'http/fetch', arguments: { url, timeoutMs: 2000 } })),
    );
    const outcome = Object.fromEntries(steps.map((s) => [s.id, { status: s.status, output: s.output, refused: /refused|not allowed|address/.test(s.error?.message ?? '') }]));
    expect(outcome).toEqual(Object.fromEntries(Object.keys(attacks).map((id) => [id, { status: 'FAILED', output: null, refused: true }])));
    const post = await executePlan(server.url, [{ id: 'post', tool: 'http/post', arguments: { url: `http://2130706433:${gatewayPort}/graphql`, body: '{"query":"{ __typename }"}' } }]);
    expect(post[0]).toMatchObject({ status: 'FAILED', output: null, error: { code: 'INVALID_ARGUMENTS' } });
  });
});
