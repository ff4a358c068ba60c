import { ErrorCode, type ToolgateError } from '@toolgate/sdk';
import { testContext, toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { byName, call, failure, conformance } = toolTester(tools);

const ctx = (signal?: AbortSignal) => testContext({ signal });
async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowedPorts, allowedPrivate, allowlist, hostAllowed, refusedKind, request } from './http.kit';

let server: Server;
let base: string;
let port: number;
const VARIABLES = ['TOOLGATE_HTTP_ALLOWLIST', 'TOOLGATE_HTTP_ALLOW_PRIVATE', 'TOOLGATE_HTTP_ALLOW_PORTS'] as const;
const previous = VARIABLES.map((name) => process.env[name]);
const settings = (allowlist: string, allowPrivate: string, allowPorts: string) => {
  process.env.TOOLGATE_HTTP_ALLOWLIST = allowlist;
  process.env.TOOLGATE_HTTP_ALLOW_PRIVATE = allowPrivate;
  process.env.TOOLGATE_HTTP_ALLOW_PORTS = allowPorts;
};
const seen: { method?: string; url?: string; headers: IncomingMessage['headers'] }[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ method: req.method, url: req.url, headers: req.headers });
  const port = (server.address() as AddressInfo).port;
  const route = new URL(req.url ?? '/', 'http://x').pathname;
  const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
  switch (route) {
    case '/text':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'set-cookie': 'session=1', etag: '"v1"' }).end('hello wörld');
      return;
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
      res.end();
      return;
    case '/binary':
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]));
      return;
    case '/redirect':
      redirect(302, '/text');
      return;
    case '/chain':
      redirect(301, `http://127.0.0.1:${port}/redirect`);
      return;
    case '/loop':
      redirect(302, '/loop');
      return;
    case '/redirect-out':
      redirect(302, `http://localhost:${port}/text`);
      return;
    case '/redirect-file':
      redirect(302, 'file:///etc/passwd');
      return;
    case '/redirect-to':
      redirect(302, new URL(req.url ?? '/', 'http://x').searchParams.get('location') ?? '/');
      return;
    case '/see-other':
      redirect(303, '/echo');
      return;
    case '/keep-post':
      redirect(307, '/echo');
      return;
    case '/slow':
      setTimeout(() => res.writeHead(200).end('late'), 3000).unref();
      return;
    case '/echo': {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, contentType: req.headers['content-type'] ?? null, body }));
      });
      return;
    }
    default:
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

// The test server is on 127.0.0.1 and a random port, so each is allowed explicitly, and nothing more.
beforeEach(() => {
  settings('127.0.0.1', '127.0.0.1/32', String(port));
  seen.length = 0;
});

afterAll(async () => {
  VARIABLES.forEach((name, i) => {
    if (previous[i] === undefined) delete process.env[name];
    else process.env[name] = previous[i];
  });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// The examples name public hosts that are not reachable from a test; the behaviour below runs against a local server.
it('every http tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ runExamples: false, minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

describe('http allowlist', () => {
  it('matches host globs case-insensitively', () => {
    const patterns = allowlist(' api.example.com , *.wikipedia.org,[::1]');
    expect(hostAllowed('API.example.com', patterns)).toBe(true);
    expect(hostAllowed('en.wikipedia.org', patterns)).toBe(true);
    expect(hostAllowed('wikipedia.org', patterns)).toBe(false);
    expect(hostAllowed('api.example.com.evil.io', patterns)).toBe(false);
    expect(hostAllowed('apixexample.com', patterns)).toBe(false);
    expect(hostAllowed('[::1]', patterns)).toBe(true);
    expect(allowlist('')).toEqual([]);
  });

  it('refuses everything when the allowlist is empty', async () => {
    process.env.TOOLGATE_HTTP_ALLOWLIST = '';
    await expectInvalid('fetch', { url: `${base}/text` }, '/url');
    expect(seen).toHaveLength(0);
  });

  it.each(['http://localhost:1/text', 'ftp://127.0.0.1/file', 'file:///etc/passwd', 'http://user:pw@127.0.0.1/text', 'not a url'])('refuses %s', async (url) => {
    await expectInvalid('fetch', { url }, '/url');
    expect(seen).toHaveLength(0);
  });
});

describe('http/fetch', () => {
  it('returns status, selected headers and a text body', async () => {
    const output = await call('fetch', { url: `${base}/text` });
    expect(output).toMatchObject({ url: `${base}/text`, status: 200, ok: true, contentType: 'text/plain', body: 'hello wörld', bodyEncoding: 'utf8', truncated: false, redirects: [] });
    expect(output.headers).toMatchObject({ etag: '"v1"', 'content-type': 'text/plain; charset=utf-8' });
    expect(output.headers).not.toHaveProperty('set-cookie');
    expect(seen[0].headers['user-agent']).toBe('toolgate-http/1.1');
  });

  it('returns binary bodies as base64 and 404s as not ok', async () => {
    expect(await call('fetch', { url: `${base}/binary` })).toMatchObject({ bodyEncoding: 'base64', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64') });
    expect(await call('fetch', { url: `${base}/missing` })).toMatchObject({ status: 404, ok: false, body: 'not found' });
  });

  it('sends HEAD without reading a body', async () => {
    expect(await call('fetch', { url: `${base}/text`, method: 'HEAD' })).toMatchObject({ status: 200, body: '', bytes: 0 });
    expect(seen[0].method).toBe('HEAD');
  });

  it('caps the body at maxBytes', async () => {
    expect(await call('fetch', { url: `${base}/big`, maxBytes: 1000 })).toMatchObject({ bytes: 1000, truncated: true });
    expect(await call('fetch', { url: `${base}/big` })).toMatchObject({ bytes: 65536, truncated: false });
  });

  it('follows allowed redirects by hand and reports them', async () => {
    const output = await call('fetch', { url: `${base}/chain` });
    expect(output).toMatchObject({ url: `${base}/text`, status: 200, redirects: [`${base}/redirect`, `${base}/text`] });
  });

  it('refuses redirects to disallowed hosts or schemes, and redirect loops', async () => {
    for (const route of ['/redirect-out', '/redirect-file']) {
      const error = await failure('fetch', { url: `${base}${route}` });
      expect(error.code).toBe(ErrorCode.TOOL_FAILED);
      expect(error.message).toMatch(/refused/);
    }
    expect(seen.map((s) => s.url)).toEqual(['/redirect-out', '/redirect-file']);
    const loop = await failure('fetch', { url: `${base}/loop` });
    expect(loop.message).toMatch(/redirects/);
  });

  it('times out with TIMEOUT and honours cancellation', async () => {
    const timedOut = await failure('fetch', { url: `${base}/slow`, timeoutMs: 200 });
    expect(timedOut.code).toBe(ErrorCode.TIMEOUT);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller went away')), 100);
    await expect(call('fetch', { url: `${base}/slow` }, ctx(controller.signal))).rejects.toThrow('caller went away');
  });

  it('reports connection failures as TOOL_FAILED', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    process.env.TOOLGATE_HTTP_ALLOW_PORTS = String(closedPort);
    const error = await failure('fetch', { url: `http://127.0.0.1:${closedPort}/` });
    expect(error.code).toBe(ErrorCode.TOOL_FAILED);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('rejects runtime-owned request headers', async () => {
    await expectInvalid('fetch', { url: `${base}/text`, headers: { Host: 'evil.example' } }, '/headers/Host');
    await expectInvalid('fetch', { url: `${base}/text`, headers: { 'X-A': 'a\r\nX-B: b' } }, '/headers/X-A');
    await expectInvalid('fetch', { url: `${base}/text`, headers: { 'Accept-Encoding': 'gzip' } }, '/headers/Accept-Encoding');
  });
});

describe('addresses the tools refuse', () => {
  // Every name is allowlisted here, so only the address and port checks stand between a caller and the target.
  const everywhere = () => settings('*', '', '1-65535');

  it.each([
    ['loopback', '127.0.0.1'],
    ['decimal loopback', '2130706433'],
    ['octal loopback', '0177.0.0.1'],
    ['hex loopback', '0x7f.1'],
    ['short loopback', '127.1'],
    ['other loopback', '127.0.0.2'],
    ['IPv6 loopback', '[::1]'],
    ['IPv4-mapped loopback', '[::ffff:127.0.0.1]'],
    ['IPv4-mapped loopback in hex', '[::ffff:7f00:1]'],
    ['IPv4-compatible loopback', '[::127.0.0.1]'],
    ['NAT64 loopback', '[64:ff9b::7f00:1]'],
    ['6to4 loopback', '[2002:7f00:1::]'],
    ['localhost', 'localhost'],
    ['localhost with a trailing dot', 'localhost.'],
    ['a localhost subdomain', 'tenant.localhost'],
    ['unspecified', '0.0.0.0'],
    ['unspecified zero', '0'],
    ['IPv6 unspecified', '[::]'],
    ['cloud metadata', '169.254.169.254'],
    ['IPv4-mapped cloud metadata', '[::ffff:169.254.169.254]'],
    ['AWS IPv6 metadata', '[fd00:ec2::254]'],
    ['link-local', '169.254.10.20'],
    ['IPv6 link-local', '[fe80::1]'],
    ['RFC 1918 10/8', '10.0.0.1'],
    ['RFC 1918 172.16/12', '172.31.255.254'],
    ['RFC 1918 192.168/16', '192.168.1.1'],
    ['IPv4-mapped private', '[::ffff:10.0.0.1]'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['unique local', '[fc00::1]'],
    ['multicast', '224.0.0.1'],
    ['IPv6 multicast', '[ff02::1]'],
    ['broadcast', '255.255.255.255'],
  ])('refuses %s (%s) before connecting', async (_kind, host) => {
    everywhere();
    const error = await failure('fetch', { url: `http://${host}:${port}/text` });
    expect({ code: error.code, path: error.details[0]?.path }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, path: '/url' });
    expect(error.message).toMatch(/address/);
    expect(seen).toHaveLength(0);
  });

  it('tells public addresses from the rest', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1']) expect(refusedKind(address)).toBeUndefined();
    expect(refusedKind('::ffff:127.0.0.1')).toBe('loopback');
    expect(refusedKind('169.254.169.254')).toBe('cloud metadata');
  });

  it('refuses a name that resolves to a private address, even when only one of its addresses is', async () => {
    settings('*.example', '', String(port));
    for (const addresses of [['127.0.0.1'], ['93.184.216.34', '10.0.0.5'], ['2606:4700::1', '::1']]) {
      const error = await request({ url: `http://internal.example:${port}/text`, method: 'GET' }, ctx(), async () => addresses).catch((e: ToolgateError) => e);
      expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringMatching(/"internal\.example" resolves to/) });
    }
    expect(seen).toHaveLength(0);
  });

  it('connects to the address it checked, not to what the name resolves to later', async () => {
    settings('*.example', '127.0.0.1/32', String(port));
    // A rebinding resolver: an allowed address first, a private one afterwards. The system resolver does not know the name.
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    let asked = 0;
    const output = await request({ url: `http://rebind.example:${port}/text`, method: 'GET' }, ctx(), async () => answers[Math.min(asked++, 1)]);
    expect(output).toMatchObject({ status: 200, body: 'hello wörld' });
    expect(asked).toBe(1);
    expect(seen[0].headers.host).toBe(`rebind.example:${port}`);
  });

  it('allows exactly what TOOLGATE_HTTP_ALLOW_PRIVATE lists', async () => {
    settings('*', '127.0.0.1/32', String(port));
    expect(await call('fetch', { url: `http://localhost:${port}/text` })).toMatchObject({ status: 200 });
    expect(await call('fetch', { url: `http://2130706433:${port}/text` })).toMatchObject({ status: 200 });
    expect(await call('fetch', { url: `http://[::ffff:127.0.0.1]:${port}/text` })).toMatchObject({ status: 200, url: `http://[::ffff:7f00:1]:${port}/text` });
    await expectInvalid('fetch', { url: `http://127.0.0.2:${port}/text` }, '/url');
    await expectInvalid('fetch', { url: `http://[::1]:${port}/text` }, '/url');
    expect(allowedPrivate('10.0.0.0/8, [fd00::]/8').check('10.200.0.1', 'ipv4')).toBe(true);
    expect(allowedPrivate('10.0.0.0/8').check('11.0.0.1', 'ipv4')).toBe(false);
  });

  it('refuses redirects to private addresses and other ports, however they are spelled', async () => {
    settings('*', '127.0.0.1/32', String(port));
    const targets = [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      `http://127.0.0.2:${port}/text`,
      `http://[::1]:${port}/text`,
      'http://0x7f000002/',
      `http://127.0.0.1:${port + 1 === 65536 ? port - 1 : port + 1}/text`,
    ];
    for (const location of targets) {
      const error = await failure('fetch', { url: `${base}/redirect-to?location=${encodeURIComponent(location)}` });
      expect({ code: error.code, message: error.message }).toEqual({ code: ErrorCode.TOOL_FAILED, message: expect.stringMatching(/^redirect to .* refused: /) });
    }
    expect(seen.map((s) => new URL(s.url ?? '', 'http://x').pathname)).toEqual(targets.map(() => '/redirect-to'));
  });

  it('uses ports 80 and 443 only, unless TOOLGATE_HTTP_ALLOW_PORTS adds others', async () => {
    settings('127.0.0.1', '127.0.0.1/32', '');
    await expectInvalid('fetch', { url: `${base}/text` }, '/url');
    expect(seen).toHaveLength(0);
    const ports = allowedPorts('8080, 9000-9100');
    expect([80, 443, 8080, 9000, 9100].every(ports)).toBe(true);
    expect([22, 8081, 8999, 9101].some(ports)).toBe(false);
  });

  it('names the variable an operator got wrong', async () => {
    for (const [allowPrivate, allowPorts, variable] of [
      ['10.0.0.0/33', '', 'TOOLGATE_HTTP_ALLOW_PRIVATE'],
      ['localhost', '', 'TOOLGATE_HTTP_ALLOW_PRIVATE'],
      ['', 'http', 'TOOLGATE_HTTP_ALLOW_PORTS'],
      ['', '70000', 'TOOLGATE_HTTP_ALLOW_PORTS'],
    ]) {
      settings('127.0.0.1', allowPrivate, allowPorts);
      const error = await failure('fetch', { url: `${base}/text` });
      expect({ code: error.code, message: error.message }).toEqual({ code: ErrorCode.TOOL_FAILED, message: expect.stringContaining(variable) });
    }
  });
});

describe('http/post', () => {
  it('sends the body with its content type', async () => {
    const output = await call('post', { url: `${base}/echo`, body: '{"a":1}' });
    expect(output.status).toBe(201);
    expect(JSON.parse(output.body as string)).toEqual({ method: 'POST', contentType: 'application/json', body: '{"a":1}' });
  });

  it('turns into a GET after 303 but keeps POST and body after 307', async () => {
    const seeOther = await call('post', { url: `${base}/see-other`, body: 'x=1', contentType: 'application/x-www-form-urlencoded' });
    expect(JSON.parse(seeOther.body as string)).toEqual({ method: 'GET', contentType: null, body: '' });
    const kept = await call('post', { url: `${base}/keep-post`, body: 'x=1', contentType: 'text/plain' });
    expect(JSON.parse(kept.body as string)).toEqual({ method: 'POST', contentType: 'text/plain', body: 'x=1' });
  });

  it('is a write-risk, non-idempotent tool', () => {
    expect(byName('post').permissions).toEqual({ scopes: ['net:fetch'], risk: 'write' });
    expect(byName('post').limits.idempotent).toBe(false);
    expect(byName('fetch').permissions).toEqual({ scopes: ['net:fetch'], risk: 'read' });
  });
});
