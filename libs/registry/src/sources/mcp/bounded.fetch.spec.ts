import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '@toolgate/sdk';
import { boundedFetch } from './bounded.fetch';

const LIMIT = 1024;
const tooLarge = { code: ErrorCode.OUTPUT_TOO_LARGE, message: expect.stringContaining(`larger than ${LIMIT} bytes`) };

/** Routes of a real local server, each answering the way an MCP server (or a hostile one) might. */
const routes: Record<string, (res: ServerResponse) => void> = {};
let server: Server;
let base: string;
const bounded = boundedFetch(LIMIT);

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes the body in pieces so no content-length is sent (chunked transfer encoding). */
const chunked = (res: ServerResponse, contentType: string, pieces: string[]) => {
  res.writeHead(200, { 'content-type': contentType });
  for (const piece of pieces) res.write(piece);
  res.end();
};

const sseEvents = (count: number, separator: string) =>
  Array.from({ length: count }, (_, i) => `id: ${i}${separator}event: message${separator}data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${i}}}${separator}${separator}`);

describe('boundedFetch', () => {
  it('passes a JSON body under the limit intact, with its status and headers', async () => {
    const body = { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } };
    routes['/small'] = (res) => res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end(JSON.stringify(body));
    const response = await bounded(`${base}/small`);
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(await response.json()).toEqual(body);
  });

  it('passes a body of exactly the limit', async () => {
    const body = 'x'.repeat(LIMIT);
    routes['/exact'] = (res) => chunked(res, 'application/json', [body.slice(0, 500), body.slice(500)]);
    expect(await (await bounded(`${base}/exact`)).text()).toBe(body);
  });

  it('refuses a body whose content-length is over the limit before reading it', async () => {
    routes['/declared'] = (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) }).end('x'.repeat(LIMIT + 1));
    await expect(bounded(`${base}/declared`)).rejects.toMatchObject(tooLarge);
  });

  it('fails the read of a body over the limit sent without a content-length', async () => {
    routes['/undeclared'] = (res) =>
      chunked(
        res,
        'application/json',
        Array.from({ length: 20 }, () => 'y'.repeat(100)),
      );
    const response = await bounded(`${base}/undeclared`);
    expect(response.headers.get('content-length')).toBeNull();
    await expect(response.text()).rejects.toMatchObject(tooLarge);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('passes an SSE stream of many small events far beyond the limit (%s line ends)', async (_name, separator) => {
    const events = sseEvents(500, separator);
    expect(events.join('').length).toBeGreaterThan(LIMIT * 20);
    routes['/sse-many'] = (res) => chunked(res, 'text/event-stream', events);
    expect(await (await bounded(`${base}/sse-many`)).text()).toBe(events.join(''));
  });

  it('counts an event split across chunks as one event', async () => {
    const event = `data: ${'z'.repeat(LIMIT)}\n\n`;
    routes['/sse-split'] = (res) => chunked(res, 'text/event-stream', [event.slice(0, 600), event.slice(600)]);
    await expect((await bounded(`${base}/sse-split`)).text()).rejects.toMatchObject(tooLarge);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('fails the read at one SSE event over the limit, after the small ones (%s line ends)', async (_name, separator) => {
    const big = `event: message${separator}data: ${'w'.repeat(LIMIT)}${separator}${separator}`;
    routes['/sse-big'] = (res) => chunked(res, 'text/event-stream', [...sseEvents(3, separator), big]);
    const reader = (await bounded(`${base}/sse-big`)).body?.getReader();
    if (!reader) throw new Error('expected a body');
    const decoder = new TextDecoder();
    let received = '';
    const readAll = async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += decoder.decode(value, { stream: true });
      }
    };
    await expect(readAll()).rejects.toMatchObject(tooLarge);
    expect(received).not.toContain('w'.repeat(LIMIT));
  });
});
