import WebSocket from 'ws';
import { codesOf, type GraphqlResponse, graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * Issue 10, item 6: every transport has the same limits. The attacker holds a read-only analyst key
 * and talks to /graphql over HTTP and over WebSocket (graphql-transport-ws, spoken by hand with `ws`,
 * as any client could), trying to get around authentication, connection caps, depth, cost, the rate
 * budget and the body size.
 */

const PROTOCOL = 'graphql-transport-ws';
const wsUrlOf = (url: string) => url.replace(/^http/, 'ws');

interface Opened {
  socket: WebSocket;
  /** Acknowledged by the server (connection_ack). */
  acked: boolean;
  close: { code: number; reason: string } | null;
  /** HTTP status when the server refused the upgrade itself. */
  refusedStatus?: number;
}

/** Opens a socket and sends connection_init with `payload`; resolves on ack, close or a refused upgrade. */
function connect(url: string, payload: unknown): Promise<Opened> {
  return new Promise((resolve) => {
    const socket = new WebSocket(wsUrlOf(url), PROTOCOL);
    const result: Opened = { socket, acked: false, close: null };
    socket.on('unexpected-response', (_req, res) => {
      result.refusedStatus = res.statusCode;
      res.resume();
      socket.terminate();
      resolve(result);
    });
    socket.on('error', () => undefined);
    socket.on('open', () => socket.send(JSON.stringify(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload })));
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') {
        result.acked = true;
        resolve(result);
      }
    });
    socket.on('close', (code, reason) => {
      result.close = { code, reason: String(reason) };
      resolve(result);
    });
  });
}

const closed = (socket: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve({ code: -1, reason: 'already closed' });
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason) }));
  });

let nextId = 0;
/** One operation over an acknowledged socket: its first `next` payload, or its `error` payload as `errors`. */
function operate(socket: WebSocket, query: string, variables: Record<string, unknown> = {}): Promise<GraphqlResponse> {
  nextId += 1;
  const id = `op${nextId}`;
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as { id?: string; type: string; payload?: unknown };
      if (message.id !== id) return;
      if (message.type === 'next') {
        socket.off('message', onMessage);
        resolve(message.payload as GraphqlResponse);
      } else if (message.type === 'error') {
        socket.off('message', onMessage);
        resolve({ errors: message.payload as GraphqlResponse['errors'] });
      }
    };
    socket.on('message', onMessage);
    socket.once('close', (code) => reject(new Error(`socket closed (${code}) before ${id} answered`)));
    socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
  });
}

async function post(url: string, body: string, key?: string) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const aliasedSearches = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `hit${i}: searchTools(input: { query: "convert ${i} km", k: 1 }) { score }`).join(' ')} }`;
const planOf = (steps: number) => ({ steps: Array.from({ length: steps }, (_, i) => ({ id: `s${i}`, tool: 'calculator/evaluate', arguments: { expression: `${i}+1` } })) });
const EXECUTE = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status } }';
const RUN_COUNT = '{ runs(filter: { limit: 500 }) { id } }';

describe('transports: one set of limits for HTTP and WebSocket', () => {
  let server: TwoTenantServer;
  const sockets: WebSocket[] = [];
  const open = async (payload: unknown) => {
    const opened = await connect(server.url, payload);
    sockets.push(opened.socket);
    return opened;
  };

  beforeAll(async () => {
    // A depth limit the schema can reach; cost, connection caps and body size at their defaults.
    server = await startTwoTenantServer({ GRAPHQL_MAX_DEPTH: '4' });
  });

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.terminate();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a WebSocket without a valid key at connection_init, in every form; another tenant's key connects as that tenant only", async () => {
    for (const payload of [undefined, {}, { authorization: '' }, { Authorization: KEYS.acmeAnalyst }, { headers: { authorization: `Bearer ${KEYS.acmeAnalyst}` } }]) {
      const attempt = await open(payload);
      expect({ payload, acked: attempt.acked, code: attempt.close?.code }).toEqual({ payload, acked: false, code: 4401 });
    }
    for (const key of ['acme-analyst-key-000002', `Bearer ${KEYS.acmeAnalyst}x`, 'Basic YWNtZTphbmFseXN0', KEYS.acmeAnalyst.toUpperCase()]) {
      const attempt = await open({ authorization: key });
      expect({ key, acked: attempt.acked, code: attempt.close?.code }).toEqual({ key, acked: false, code: 4403 });
    }
    // Skipping connection_init and subscribing straight away gets nothing either.
    const raw = new WebSocket(wsUrlOf(server.url), PROTOCOL);
    sockets.push(raw);
    await new Promise((resolve) => raw.once('open', resolve));
    raw.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ me { tenant } }' } }));
    expect((await closed(raw)).code).toBe(4401);

    for (const authorization of [KEYS.acmeAnalyst, `Bearer ${KEYS.acmeAnalyst}`]) {
      const ok = await open({ authorization });
      expect(ok.acked).toBe(true);
      expect((await operate(ok.socket, '{ me { tenant subject } }')).data).toEqual({ me: { tenant: 'acme', subject: 'alice' } });
    }

    // Another tenant's key connects as that tenant only: acme's run is missing to it.
    const made = await graphql<{ executePlan: { id: string; status: string } }>(server.url, EXECUTE, { key: KEYS.acmeAnalyst, variables: { plan: planOf(1) } });
    const runId = made.data?.executePlan.id as string;
    expect(made.data?.executePlan.status).toBe('SUCCEEDED');
    const globex = await open({ authorization: KEYS.globexAnalyst });
    expect(globex.acked).toBe(true);
    expect((await operate(globex.socket, 'query($id: ID!) { run(id: $id) { id steps { output } } }', { id: runId })).data).toEqual({ run: null });
    const watched = await operate(globex.socket, 'subscription($id: ID!) { runEvents(runId: $id) { seq payload } }', { id: runId });
    expect(watched.data ?? null).toBeNull();
    expect(codesOf(watched)).toEqual(['INVALID_ARGUMENTS']);
  });

  it('caps WebSocket connections per key: of 20 on one key, 8 are served; other keys still connect; a closed one frees its slot', async () => {
    const attempts = await Promise.all(Array.from({ length: 20 }, () => open({ authorization: KEYS.acmeAnalyst })));
    const served = attempts.filter((a) => a.acked);
    expect(served).toHaveLength(8);
    for (const refused of attempts.filter((a) => !a.acked)) expect(refused.close?.code).toBe(1013);
    // The key's served sockets still answer, and another principal is not affected.
    expect((await operate(served[0].socket, '{ me { subject } }')).data).toEqual({ me: { subject: 'alice' } });
    expect((await open({ authorization: KEYS.globexAnalyst })).acked).toBe(true);
    // The same subject through the other transport form of the key shares the cap.
    expect((await open({ authorization: `Bearer ${KEYS.acmeAnalyst}` })).close?.code).toBe(1013);
    const freed = closed(served[0].socket);
    served[0].socket.close(1000);
    await freed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await open({ authorization: KEYS.acmeAnalyst })).acked).toBe(true);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });

  it('refuses an operation over the depth limit over WebSocket as over HTTP, fragments or not', async () => {
    const ws = await open({ authorization: KEYS.acmeAnalyst });
    const deep = [
      '{ searchTools(input: { query: "convert" }) { tool { versions { integrityFindings { rule } } } } }',
      'query { a: searchTools(input: { query: "x" }) { ...T } } fragment T on ToolMatch { tool { ... on Tool { versions { integrityFindings { path } } } } }',
    ];
    for (const query of deep) {
      const overWs = await operate(ws.socket, query);
      const overHttp = await graphql(server.url, query, { key: KEYS.acmeAnalyst });
      expect(codesOf(overWs)).toEqual(['QUERY_TOO_DEEP']);
      expect(codesOf(overHttp)).toEqual(['QUERY_TOO_DEEP']);
      expect(overWs.data ?? null).toBeNull();
    }
    // Within the limit it is served.
    expect(codesOf(await operate(ws.socket, '{ searchTools(input: { query: "convert" }) { tool { versions { version } } } }'))).toEqual([]);
  });

  it('refuses 500 aliased searches, over HTTP (400) and over WebSocket, with the computed cost; a normal query passes', async () => {
    const response = await post(server.url, JSON.stringify({ query: aliasedSearches(500) }), KEYS.acmeAnalyst);
    expect(response.status).toBe(400);
    const overHttp = JSON.parse(response.text) as GraphqlResponse;
    expect(codesOf(overHttp)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(overHttp.errors?.[0].extensions?.complexity).toBeGreaterThan(2000);
    const ws = await open({ authorization: KEYS.acmeAnalyst });
    const overWs = await operate(ws.socket, aliasedSearches(500));
    expect(codesOf(overWs)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(overWs.errors?.[0].extensions?.complexity).toBe(overHttp.errors?.[0].extensions?.complexity);
    // The same k=50 search twenty times over is refused by k, not by field count.
    const wide = `{ ${Array.from({ length: 20 }, (_, i) => `w${i}: searchTools(input: { query: "q${i}", k: 50 }) { score tool { id } }`).join(' ')} }`;
    expect(codesOf(await operate(ws.socket, wide))).toEqual(['QUERY_TOO_COMPLEX']);
    const normal = '{ searchTools(input: { query: "convert 5 km to miles", k: 10 }) { score tool { id name description } explanation { summary matchedTerms } } }';
    expect(codesOf(await operate(ws.socket, normal))).toEqual([]);
    expect(codesOf(await graphql(server.url, normal, { key: KEYS.acmeAnalyst }))).toEqual([]);
  });

  it('refuses a costly listing and an executePlan of many tool calls over WebSocket, and runs nothing', async () => {
    const ws = await open({ authorization: KEYS.acmeAnalyst });
    const before = ((await graphql<{ runs: unknown[] }>(server.url, RUN_COUNT, { key: KEYS.acmeAdmin })).data?.runs ?? []).length;
    const listing = await operate(ws.socket, '{ runs(filter: { limit: 500 }) { id status steps { id status output error { code message } } } }');
    expect(codesOf(listing)).toEqual(['QUERY_TOO_COMPLEX']);
    const plan = await operate(ws.socket, EXECUTE, { plan: planOf(300) });
    expect(codesOf(plan)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(plan.errors?.[0].extensions?.complexity).toBeGreaterThanOrEqual(3000);
    // Split over aliases: 12 plans of 20 steps each, 240 tool calls in one message.
    const aliased = `mutation($plan: PlanInput!) { ${Array.from({ length: 12 }, (_, i) => `p${i}: executePlan(plan: $plan) { id }`).join(' ')} }`;
    expect(codesOf(await operate(ws.socket, aliased, { plan: planOf(20) }))).toEqual(['QUERY_TOO_COMPLEX']);
    expect(codesOf(await graphql(server.url, aliased, { key: KEYS.acmeAnalyst, variables: { plan: planOf(20) } }))).toEqual(['QUERY_TOO_COMPLEX']);
    const after = ((await graphql<{ runs: unknown[] }>(server.url, RUN_COUNT, { key: KEYS.acmeAdmin })).data?.runs ?? []).length;
    expect(after).toBe(before);
    // A small plan still runs over WebSocket.
    expect((await operate(ws.socket, EXECUTE, { plan: planOf(2) })).data).toEqual({ executePlan: { id: expect.any(String), status: 'SUCCEEDED' } });
  });

  it('closes a WebSocket whose message is over the body limit (1009), and keeps serving', async () => {
    const ws = await open({ authorization: KEYS.acmeAnalyst });
    const huge = JSON.stringify({ id: 'big', type: 'subscribe', payload: { query: `{ me { subject } } #${'x'.repeat(17 * 1024 * 1024)}` } });
    const done = closed(ws.socket);
    ws.socket.send(huge);
    expect((await done).code).toBe(1009);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
    expect((await open({ authorization: KEYS.acmeAnalyst })).acked).toBe(true);
  });

  it('takes a body that holds a 10 MiB image to the per-image rule, and refuses a 20 MiB body with 413 naming the limit', async () => {
    const limit = 10 * 1024 * 1024;
    // Not an image but exactly at the size limit: refused for what it is, not for its size.
    const atLimit = Buffer.alloc(limit, 7).toString('base64');
    const search = 'query($images: [ImageInput!]) { searchTools(input: { query: "", images: $images }) { score } }';
    const atLimitResponse = await post(server.url, JSON.stringify({ query: search, variables: { images: [{ mimeType: 'image/png', dataBase64: atLimit }] } }), KEYS.acmeAnalyst);
    expect(atLimitResponse.status).toBe(200);
    const atLimitBody = JSON.parse(atLimitResponse.text) as GraphqlResponse;
    expect(codesOf(atLimitBody)).toEqual(['INVALID_ARGUMENTS']);
    expect(atLimitBody.errors?.[0].message).toContain('not a recognised image');
    // One byte over the image limit: a typed per-image error with its path.
    const over = Buffer.alloc(limit + 1, 7).toString('base64');
    const overBody = JSON.parse(
      (await post(server.url, JSON.stringify({ query: search, variables: { images: [{ mimeType: 'image/png', dataBase64: over }] } }), KEYS.acmeAnalyst)).text,
    ) as GraphqlResponse;
    expect(codesOf(overBody)).toEqual(['INVALID_ARGUMENTS']);
    expect(overBody.errors?.[0].extensions?.details).toEqual([{ path: '/images/0', message: expect.stringContaining(`over the limit of ${limit}`) }]);

    const twenty = await post(server.url, JSON.stringify({ query: search, variables: { images: [{ mimeType: 'image/png', dataBase64: 'A'.repeat(20 * 1024 * 1024) }] } }), KEYS.acmeAnalyst);
    expect(twenty.status).toBe(413);
    const refused = JSON.parse(twenty.text) as GraphqlResponse;
    expect(refused.errors?.[0].message).toContain(`limit of ${16 * 1024 * 1024} bytes`);
    expect(refused.errors?.[0].extensions?.maxBytes).toBe(16 * 1024 * 1024);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });
});

describe('transports: a per-principal rate budget shared by HTTP and WebSocket', () => {
  let server: TwoTenantServer;
  const sockets: WebSocket[] = [];
  const open = async (payload: unknown) => {
    const opened = await connect(server.url, payload);
    sockets.push(opened.socket);
    return opened;
  };

  beforeAll(async () => {
    server = await startTwoTenantServer({
      TOOLGATE_RATE_LIMIT_PER_MINUTE: '600',
      TOOLGATE_RATE_LIMIT_BURST: '400',
      GRAPHQL_MAX_COMPLEXITY: '400',
      TOOLGATE_WS_MAX_CONNECTIONS: '4',
    });
  });

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.terminate();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('limits a flood with RATE_LIMITED, 429 and Retry-After, on both transports, while another principal is served', async () => {
    const search = JSON.stringify({ query: '{ searchTools(input: { query: "convert km to miles" }) { score tool { id } } }' });
    let limited: Awaited<ReturnType<typeof post>> | null = null;
    let served = 0;
    for (let i = 0; i < 200 && !limited; i += 1) {
      const response = await post(server.url, search, KEYS.acmeAnalyst);
      if (response.status === 429) limited = response;
      else served += 1;
    }
    // 400 units at 25 a search (a retrieval pass and 5 results): about 16 pass, the flood does not.
    expect(served).toBeGreaterThan(5);
    expect(served).toBeLessThan(40);
    expect(limited).not.toBeNull();
    const body = JSON.parse(limited?.text ?? '{}') as GraphqlResponse;
    expect(codesOf(body)).toEqual(['RATE_LIMITED']);
    const retryAfter = Number(limited?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(body.errors?.[0].extensions?.retryAfterSeconds).toBe(retryAfter);

    // The budget is the principal's, not the connection's: over WebSocket it is spent too.
    const acme = await open({ authorization: KEYS.acmeAnalyst });
    const overWs = await operate(acme.socket, '{ searchTools(input: { query: "convert" }) { score } }');
    expect(codesOf(overWs)).toEqual(['RATE_LIMITED']);
    expect(overWs.errors?.[0].extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // Another tenant's analyst, over either transport, is not limited.
    expect(codesOf(await graphql(server.url, '{ searchTools(input: { query: "convert km to miles" }) { score } }', { key: KEYS.globexAnalyst }))).toEqual([]);
    const globex = await open({ authorization: KEYS.globexAnalyst });
    expect(codesOf(await operate(globex.socket, '{ me { tenant } }'))).toEqual([]);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });

  it('charges made-up keys by address, so rotating fake keys does not escape the budget', async () => {
    let limited = false;
    for (let i = 0; i < 200 && !limited; i += 1) {
      const response = await post(server.url, JSON.stringify({ query: '{ searchTools(input: { query: "x" }) { score } }' }), `made-up-key-${i}`);
      limited = response.status === 429;
    }
    expect(limited).toBe(true);
    expect(codesOf(await graphql(server.url, '{ me { tenant } }', { key: KEYS.globexAdmin }))).toEqual([]);
  });

  it('caps WebSocket connections in all, before the handshake', async () => {
    // Let the server see the previous test's sockets go.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const first = await Promise.all([KEYS.acmeAdmin, KEYS.acmeAdmin, KEYS.globexAdmin, KEYS.globexAdmin].map((authorization) => open({ authorization })));
    expect(first.every((a) => a.acked)).toBe(true);
    const fifth = await open({ authorization: KEYS.globexAnalyst });
    expect(fifth.acked).toBe(false);
    expect(fifth.refusedStatus).toBe(503);
    // HTTP is unaffected.
    expect(codesOf(await graphql(server.url, '{ me { tenant } }', { key: KEYS.globexAnalyst }))).toEqual([]);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });
});
