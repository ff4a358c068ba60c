import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { codesOf, graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, TWO_TENANT_POLICY, type TwoTenantServer } from './support/two-tenants';

/** Error codes of the answer to one raw graphql-transport-ws `subscribe` message (id "deep"). */
function overWebSocket(url: string, key: string, subscribe: string): Promise<(string | undefined)[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: key } })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: string; type: string; payload?: unknown };
      if (message.type === 'connection_ack') socket.send(subscribe);
      const errors = message.type === 'error' ? message.payload : message.type === 'next' ? (message.payload as { errors?: unknown }).errors : undefined;
      if (message.id === 'deep' && errors) {
        socket.close();
        resolve((errors as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code));
      }
    });
    socket.once('close', (code) => reject(new Error(`socket closed (${code}) before an answer`)));
  });
}

/**
 * Config cannot open the server, and input cannot crash it: an operator key (even the platform
 * admin's) tries to reload the server into keyless mode, then anonymous callers try the admin
 * mutations; input nested thousands of levels deep arrives over HTTP and over WebSocket.
 */
describe('config and input attacks', () => {
  let server: TwoTenantServer;

  beforeAll(async () => {
    server = await startTwoTenantServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('never reloads into keyless mode, whoever asks and however the file is emptied; anonymous admin calls stay out', async () => {
    const withoutKeys = TWO_TENANT_POLICY.slice(0, TWO_TENANT_POLICY.indexOf('apiKeys:'));
    const keyless = ['', '# nothing here\n', 'roles: {}\napiKeys: []\n', withoutKeys, `${withoutKeys}apiKeys: []\n`, '{"roles": {}, "apiKeys": []}'];
    try {
      for (const content of keyless) {
        writeFileSync(server.policyFile, content);
        for (const key of [KEYS.platformAdmin, KEYS.acmeAdmin]) {
          const codes = codesOf(await graphql(server.url, 'mutation { reloadPolicies { apiKeys } }', { key }));
          expect({ content, key, codes }).toEqual({ content, key, codes: [key === KEYS.platformAdmin ? 'INVALID_CONFIG' : 'FORBIDDEN'] });
        }
        for (const key of [undefined, 'made-up-key-0000000000', '']) {
          expect(codesOf(await graphql(server.url, 'mutation { reloadPlugins { durationMs } }', { key }))).toEqual(['UNAUTHENTICATED']);
          expect(codesOf(await graphql(server.url, '{ tools { id } }', { key }))).toEqual(['UNAUTHENTICATED']);
        }
        // The policies in force were kept: the tenants still work.
        expect(codesOf(await graphql(server.url, '{ tools { id } }', { key: KEYS.globexAnalyst }))).toEqual([]);
      }
    } finally {
      writeFileSync(server.policyFile, TWO_TENANT_POLICY);
    }
    expect(codesOf(await graphql(server.url, 'mutation { reloadPolicies { apiKeys } }', { key: KEYS.platformAdmin }))).toEqual([]);
  });

  it('answers input nested 5,000 levels deep with INVALID_ARGUMENTS over HTTP and WebSocket, and keeps answering /health', async () => {
    const EXECUTE = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id } }';
    const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const deepArray = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    for (const deep of [deepObject, deepArray]) {
      const body = `{"query":${JSON.stringify(EXECUTE)},"variables":{"plan":{"steps":[{"id":"a","tool":"calculator/evaluate","arguments":{"expression":"1","variables":{"x":${deep}}}}]}}}`;
      const response = (await (await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.acmeAnalyst}` }, body })).json()) as {
        errors?: { extensions?: { code?: string } }[];
      };
      expect(response.errors?.map((e) => e.extensions?.code)).toEqual(['INVALID_ARGUMENTS']);

      // Sent as raw protocol text: a client library would have to serialize the nesting itself first.
      const codes = await overWebSocket(
        server.url,
        KEYS.acmeAnalyst,
        `{"id":"deep","type":"subscribe","payload":{"query":${JSON.stringify(EXECUTE)},"variables":{"plan":{"steps":[{"id":"a","tool":"calculator/evaluate","arguments":{"expression":"1","variables":{"x":${deep}}}}]}}}}`,
      );
      expect(codes).toEqual(['INVALID_ARGUMENTS']);
      expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
    }
    expect((await graphql<{ runs: { id: string }[] }>(server.url, '{ runs(filter: { limit: 10 }) { id } }', { key: KEYS.acmeAnalyst })).data?.runs).toEqual([]);
  });
});
