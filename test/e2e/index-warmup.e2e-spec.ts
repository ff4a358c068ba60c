import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { graphql, REPO_ROOT, type RunningGateway, startGateway } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';

/**
 * Issue 15, "ready means right": a server on a fresh data directory with the default local model is
 * searched from the moment it listens until it is ready. The bundled tools plus 200 more take seconds
 * to embed; in that window every answer, over GraphQL and MCP, is either tools (flagged `degraded`
 * while vectors are missing) or INDEX_UNAVAILABLE with a retry hint, never a silent empty list.
 */

const QUERY = 'convert 10 miles to kilometers';
const SEARCH = `{ searchTools(input: { query: "${QUERY}", k: 5 }) { tool { id } explanation { degraded summary } } }`;

interface Answer {
  over: 'graphql' | 'mcp';
  ids: string[];
  degraded: (string | null)[];
  error?: string;
  retryAfterSeconds?: number;
}

async function overGraphql(url: string): Promise<Answer> {
  const body = await graphql<{ searchTools: { tool: { id: string }; explanation: { degraded: string | null } }[] }>(url, SEARCH);
  const error = body.errors?.[0];
  const hits = body.data?.searchTools ?? [];
  return {
    over: 'graphql',
    ids: hits.map((h) => h.tool.id),
    degraded: hits.map((h) => h.explanation.degraded),
    ...(error ? { error: String(error.extensions?.code), retryAfterSeconds: error.extensions?.retryAfterSeconds as number } : {}),
  };
}

/** search_tools as a stateless 2025-era client posts it. */
async function overMcp(url: string): Promise<Answer> {
  const response = await fetch(url.replace(/\/graphql$/, '/mcp'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_tools', arguments: { query: QUERY, k: 5 } } }),
  });
  const text = await response.text();
  const message = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as {
    result?: { isError?: boolean; structuredContent?: { hits?: { id: string; degraded?: string }[]; error?: { code: string; retryAfterSeconds?: number } } };
  };
  const content = message.result?.structuredContent;
  const hits = content?.hits ?? [];
  return {
    over: 'mcp',
    ids: hits.map((h) => h.id),
    degraded: hits.map((h) => h.degraded ?? null),
    ...(content?.error ? { error: content.error.code, retryAfterSeconds: content.error.retryAfterSeconds } : {}),
  };
}

describe('searching a server that is still warming up', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-warmup-'));
  const plugins = join(work, 'plugins');
  let gateway: RunningGateway | undefined;
  // 200 distinct tools: enough vectors that the warm-up window is seconds long.
  const tools = Array.from({ length: 200 }, (_, i) => toolSource(`t${i}`, `Keeps ledger ${i} of the warehouse in order. Use it for stock counts of shelf ${i}; not for conversions.`));
  writePlugin(plugins, { folder: 'ledger', packageJson: pluginPackage('@fixtures/ledger', '1.0.0'), entry: `exports.tools = [${tools.join(',')}];` });

  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers tools (degraded while vectors are missing) or INDEX_UNAVAILABLE with a retry hint, never a silent []', async () => {
    gateway = await startGateway({ TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: [join(REPO_ROOT, 'plugins'), plugins].join(delimiter), HOST: '127.0.0.1' }, REPO_ROOT, {
      until: 'listening',
    });
    const url = gateway.url;
    const ready = async () => (await fetch(url.replace(/\/graphql$/, '/health/ready'))).status === 200;
    const answers: Answer[] = [];
    for (let i = 0; !(await ready()); i++) {
      answers.push(await (i % 2 === 0 ? overGraphql(url) : overMcp(url)));
      if (answers.length > 5_000) throw new Error('never ready');
    }
    const warm = [await overGraphql(url), await overMcp(url)];

    for (const answer of answers) {
      if (answer.error) {
        expect(answer).toMatchObject({ error: 'INDEX_UNAVAILABLE', ids: [] });
        expect(answer.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      } else {
        expect(answer.ids.length).toBeGreaterThan(0);
      }
    }
    // The window was real: answers were given while vectors were still being computed, and said so.
    const degraded = answers.filter((a) => a.degraded.some((d) => d !== null));
    expect(degraded.length).toBeGreaterThan(0);
    expect(degraded.every((a) => a.degraded.every((d) => /^vectors \d+\/\d+$/.test(d ?? '')))).toBe(true);
    expect(degraded.some((a) => a.over === 'mcp')).toBe(true);
    for (const answer of warm) {
      expect(answer.error).toBeUndefined();
      expect(answer.ids[0]).toBe('units/convert');
      expect(answer.degraded.every((d) => d === null)).toBe(true);
    }
  });
});
