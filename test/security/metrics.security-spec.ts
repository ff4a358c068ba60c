import { codesOf, graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * Issue 12, /metrics attacked from outside. Its labels name every tenant, tool and outcome, so only a
 * platform admin's key may read it: no key, made-up keys, other schemes and places for the key,
 * tenant analysts and tenant admins, path and method variants all get a refusal without a single
 * sample; hostile input cannot forge a sample; guessing keys runs into the rate limit.
 */

const metricsUrl = (server: TwoTenantServer, path = '/metrics') => server.url.replace(/\/graphql$/, path);

/** True when a body carries any exposition at all. */
const leaks = (body: string) => /toolgate_|process_resident|# TYPE|acme|globex/.test(body);

describe('/metrics: only a platform admin reads it', () => {
  let server: TwoTenantServer;

  beforeAll(async () => {
    server = await startTwoTenantServer();
    // Both tenants leave traces worth stealing.
    for (const key of [KEYS.acmeAnalyst, KEYS.globexAnalyst]) {
      const run = await graphql(server.url, 'mutation { runTask(task: { text: "convert 10 miles to km" }) { status } }', { key });
      expect(run.errors).toBeUndefined();
    }
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a request without a key with 401 and a Bearer challenge, and no sample', async () => {
    const response = await fetch(metricsUrl(server));
    const body = await response.text();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="toolgate"');
    expect(JSON.parse(body)).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.stringContaining('missing API key') } });
    expect(leaks(body)).toBe(false);
  });

  it.each([
    ['a made-up key', { authorization: 'Bearer not-a-real-key-0000001' }],
    ['the platform key under Basic', { authorization: `Basic ${Buffer.from(`root:${KEYS.platformAdmin}`).toString('base64')}` }],
    ['the platform key without a scheme', { authorization: KEYS.platformAdmin }],
    ['the platform key in X-Api-Key', { 'x-api-key': KEYS.platformAdmin }],
    ['the platform key as a cookie', { cookie: `token=${KEYS.platformAdmin}` }],
  ])('refuses %s with 401 and no sample', async (_, headers) => {
    const response = await fetch(metricsUrl(server), { headers });
    const body = await response.text();
    expect(response.status).toBe(401);
    expect(leaks(body)).toBe(false);
  });

  it('does not take the key from the query string', async () => {
    const response = await fetch(metricsUrl(server, `/metrics?key=${KEYS.platformAdmin}&access_token=${KEYS.platformAdmin}`));
    expect(response.status).toBe(401);
    expect(leaks(await response.text())).toBe(false);
  });

  it.each([
    ['an analyst of acme', KEYS.acmeAnalyst],
    ['the tenant admin of acme', KEYS.acmeAdmin],
    ['the tenant admin of globex', KEYS.globexAdmin],
  ])('refuses %s with 403 naming the platform admin role, and no sample', async (_, key) => {
    const response = await fetch(metricsUrl(server), { headers: { authorization: `Bearer ${key}` } });
    const body = await response.text();
    expect(response.status).toBe(403);
    expect(JSON.parse(body)).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('platform admin') } });
    expect(leaks(body)).toBe(false);
  });

  it.each(['/metrics/', '/METRICS', '/metrics;x=1', '//metrics', '/%6detrics', '/metrics/../metrics', '/health/../metrics', '/graphql/../metrics'])(
    'serves no sample on the path variant %s without a key',
    async (path) => {
      const response = await fetch(`${metricsUrl(server, '')}${path}`);
      expect(response.status).not.toBe(200);
      expect(leaks(await response.text())).toBe(false);
    },
  );

  it.each(['POST', 'PUT', 'DELETE'])('answers %s /metrics with no sample, even with the platform key', async (method) => {
    const response = await fetch(metricsUrl(server), { method, headers: { authorization: `Bearer ${KEYS.platformAdmin}` } });
    expect(response.status).toBe(404);
    expect(leaks(await response.text())).toBe(false);
  });

  it('cannot be forged: a plan naming a tool with quotes and newlines adds no sample, the platform admin reads both tenants', async () => {
    const forged = 'units/convert@1.0.0"} 99\ninjected_metric{tenant="globex';
    const attempt = await graphql(server.url, 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { status } }', {
      key: KEYS.acmeAnalyst,
      variables: { plan: { steps: [{ id: 'a', tool: forged, arguments: { value: 1 } }] } },
    });
    // Refused by the plan's validation (it reached the executor's checks), not by the GraphQL parser.
    expect(codesOf(attempt)).toEqual([expect.stringMatching(/^(TOOL_NOT_FOUND|INVALID_PLAN|INVALID_ARGUMENTS)$/)]);
    const response = await fetch(metricsUrl(server), { headers: { authorization: `Bearer ${KEYS.platformAdmin}` } });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).not.toContain('injected_metric');
    expect(
      body.split('\n').filter((line) => line && !line.startsWith('#') && !/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^\n]*\})? -?[0-9.e+-]+$|^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^\n]*\})? (NaN|[+-]Inf)$/.test(line)),
    ).toEqual([]);
    expect(body).toMatch(/^toolgate_runs_total\{status="SUCCEEDED",tenant="acme"\} 1$/m);
    expect(body).toMatch(/^toolgate_runs_total\{status="SUCCEEDED",tenant="globex"\} 1$/m);
  });
});

describe('/metrics: guessing keys is rate limited', () => {
  let server: TwoTenantServer;

  beforeAll(async () => {
    server = await startTwoTenantServer({ TOOLGATE_RATE_LIMIT_PER_MINUTE: '60', TOOLGATE_RATE_LIMIT_BURST: '20', GRAPHQL_MAX_COMPLEXITY: '20' });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers rotating guessed keys with 429 and Retry-After once the address spent its budget; the platform admin is still served and /health answers', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const response = await fetch(metricsUrl(server), { headers: { authorization: `Bearer guessed-key-${i}-00000000` } });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.text();
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited?.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('rate limit') } });
    const admin = await fetch(metricsUrl(server), { headers: { authorization: `Bearer ${KEYS.platformAdmin}` } });
    expect(admin.status).toBe(200);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });
});
