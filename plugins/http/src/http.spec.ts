import { ErrorCode } from '@toolgate/sdk';
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
import { allowlist, hostAllowed } from './http.kit';

let server: Server;
let base: string;
const previous = process.env.TOOLGATE_HTTP_ALLOWLIST;
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
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  process.env.TOOLGATE_HTTP_ALLOWLIST = '127.0.0.1';
  seen.length = 0;
});

afterAll(async () => {
  if (previous === undefined) delete process.env.TOOLGATE_HTTP_ALLOWLIST;
  else process.env.TOOLGATE_HTTP_ALLOWLIST = previous;
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
    expect(seen[0].headers['user-agent']).toBe('toolgate-http/1.0');
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
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure('fetch', { url: `http://127.0.0.1:${port}/` });
    expect(error.code).toBe(ErrorCode.TOOL_FAILED);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('rejects runtime-owned request headers', async () => {
    await expectInvalid('fetch', { url: `${base}/text`, headers: { Host: 'evil.example' } }, '/headers/Host');
    await expectInvalid('fetch', { url: `${base}/text`, headers: { 'X-A': 'a\r\nX-B: b' } }, '/headers/X-A');
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
