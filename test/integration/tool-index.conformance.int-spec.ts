import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchToolIndex, EmbeddedToolIndex, type Embedder, HashingEmbedder, type IndexedTool, type ToolDocument, type ToolIndex, type ToolSearchFilter } from '@toolgate/retrieval';
import { compileToolGlob, ErrorCode, RISK_ORDER, type Risk } from '@toolgate/sdk';

type Driver = 'embedded' | 'elasticsearch';

const tool = (id: string, risk: Risk, category: string, title: string, description: string, exampleQueries: string[], parameters: string[] = []): ToolDocument => ({
  id,
  version: '1.0.0',
  name: id.split('/')[1],
  title,
  description,
  category: [category],
  tags: [],
  parameters: parameters.map((name) => ({ name, description: `the ${name.replace(/_/g, ' ')}` })),
  exampleQueries,
  usageQueries: [],
  risk,
});

const DOCS: ToolDocument[] = [
  tool(
    'units/convert',
    'read',
    'math',
    'Unit converter',
    'Convert a quantity between units of length, mass and temperature',
    ['how many kilometers is 10 miles', 'convert 100 fahrenheit to celsius'],
    ['value', 'from_unit', 'to_unit'],
  ),
  tool(
    'currency/convert',
    'read',
    'finance',
    'Currency converter',
    'Convert an amount of money between currencies using current exchange rates',
    ['exchange 50 euros into us dollars', 'what is the yen to pound rate'],
    ['amount', 'currency'],
  ),
  tool('files/read', 'read', 'files', 'Read file', 'Read a text file from the sandbox folder and return its content', ['show me the contents of notes.txt', 'open the readme file'], ['path']),
  tool(
    'files/write',
    'write',
    'files',
    'Write file',
    'Write text into a file in the sandbox folder, creating it when missing',
    ['save this paragraph to draft.md', 'create a file called todo.txt'],
    ['path', 'content'],
  ),
  tool('files/delete', 'destructive', 'files', 'Delete file', 'Delete a file from the sandbox folder permanently', ['remove the old log file', 'erase temp.csv'], ['path']),
  tool(
    'weather/forecast',
    'read',
    'weather',
    'Weather forecast',
    'Weather forecast for a city: temperature, rain and wind for the next days',
    ['will it rain in paris tomorrow', 'forecast for berlin this weekend'],
    ['city'],
  ),
  tool(
    'mail/send',
    'write',
    'communication',
    'Send email',
    'Send an email message to one or more recipients',
    ['email bob the meeting notes', 'send a message to alice about lunch'],
    ['to', 'subject', 'body'],
  ),
  tool(
    'mail/search',
    'read',
    'communication',
    'Search mailbox',
    'Search the mailbox for emails by sender, subject or text',
    ['find the invoice email from acme', 'look for messages from my manager'],
    ['query'],
  ),
  tool(
    'calendar/create-event',
    'write',
    'productivity',
    'Create calendar event',
    'Create a calendar event with a title, start time and attendees',
    ['schedule a meeting with the team on friday at 3pm', 'book a dentist appointment next tuesday'],
    ['title', 'start'],
  ),
  tool('math/calculate', 'read', 'math', 'Calculator', 'Evaluate an arithmetic expression and return the number', ['what is 17 times 23', 'compute the square root of 2'], ['expression']),
  tool('db/query', 'read', 'data', 'SQL query', 'Run a read-only SQL query against the analytics database', ['how many orders were placed last month', 'select the top customers by revenue'], ['sql']),
  tool('db/drop-table', 'destructive', 'data', 'Drop table', 'Drop a table from the analytics database', ['delete the staging table', 'drop table tmp_orders'], ['table_name']),
  tool(
    'web/search',
    'read',
    'search',
    'Web search',
    'Search the web and return the top result pages with snippets',
    ['latest news about electric cars', 'look up the population of canada'],
    ['query'],
  ),
  tool(
    'translate/text',
    'read',
    'language',
    'Translator',
    'Translate text from one language into another',
    ['translate good morning into spanish', 'what does danke mean in english'],
    ['text', 'target_language'],
  ),
  tool(
    'image.tools/resize',
    'write',
    'media',
    'Resize image',
    'Resize or crop an image to the requested width and height',
    ['make this photo 800 pixels wide', 'crop the picture to a square'],
    ['width', 'height'],
  ),
];
const ALL_IDS = DOCS.map((d) => d.id).sort();

const embedder: Embedder = new HashingEmbedder();
const MODEL = embedder.model;
const everything: ToolSearchFilter = { scope: [{ idGlob: '**', maxRisk: 'destructive' }] };
/** Names every namespace: lexically, it matches each tool. */
const EVERY_TOOL = 'units currency files weather mail calendar math db web translate image';

async function indexed(docs: ToolDocument[], by = embedder): Promise<IndexedTool[]> {
  return Promise.all(
    docs.map(async (doc) => {
      const vectors = await by.embed([doc.description, ...doc.exampleQueries, ...doc.usageQueries], 'document');
      const learned = Object.entries(doc.learned ?? {});
      if (learned.length === 0) return { doc, vectors };
      return { doc, vectors, learnedVectors: Object.fromEntries(await Promise.all(learned.map(async ([tenant, queries]) => [tenant, await by.embed(queries, 'document')] as const))) };
    }),
  );
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

/** What a filter allows, computed independently of both drivers. */
function allowed(filter: ToolSearchFilter): string[] {
  return ALL_IDS.filter((id) => {
    const doc = DOCS.find((d) => d.id === id) as ToolDocument;
    if (filter.categories?.length && !doc.category.some((c) => filter.categories?.includes(c))) return false;
    return filter.scope.some((c) => compileToolGlob(c.idGlob)(id) && RISK_ORDER.indexOf(doc.risk) <= RISK_ORDER.indexOf(c.maxRisk));
  });
}

const RUN = `conf-${randomBytes(4).toString('hex')}`;
let prefixes = 0;
const opened: ElasticsearchToolIndex[] = [];
let admin: Client;

function elasticsearch(prefix = `${RUN}-${++prefixes}`, node = process.env.ELASTICSEARCH_URL as string): ElasticsearchToolIndex {
  const index = new ElasticsearchToolIndex({ node, indexPrefix: prefix, requestTimeoutMs: 5_000 });
  opened.push(index);
  return index;
}

const make = (driver: Driver): ToolIndex => (driver === 'embedded' ? new EmbeddedToolIndex() : elasticsearch());

beforeAll(() => {
  if (!process.env.ELASTICSEARCH_URL) throw new Error('ELASTICSEARCH_URL is not set: run npm test, which starts Elasticsearch, or set ELASTICSEARCH_URL');
  admin = new Client({ node: process.env.ELASTICSEARCH_URL });
});

afterAll(async () => {
  await Promise.all(opened.map((i) => i.close()));
  if (!admin) return;
  const indices = Object.keys(await admin.indices.get({ index: `${RUN}-*`, expand_wildcards: 'all' }));
  if (indices.length > 0) await admin.indices.delete({ index: indices });
  await admin.close();
});

const CLEAR_QUERIES: [string, string][] = [
  ['convert 10 miles to kilometers', 'units/convert'],
  ['exchange rate euros dollars', 'currency/convert'],
  ['weather forecast rain', 'weather/forecast'],
  ['send an email', 'mail/send'],
  ['delete a file', 'files/delete'],
  ['translate into spanish', 'translate/text'],
  ['sql query on the database', 'db/query'],
  ['resize an image', 'image.tools/resize'],
  ['schedule a calendar meeting', 'calendar/create-event'],
  ['arithmetic expression', 'math/calculate'],
];

const FILTERS: [string, ToolSearchFilter][] = [
  ['a namespace, read only', { scope: [{ idGlob: 'files/*', maxRisk: 'read' }] }],
  ['a namespace up to write', { scope: [{ idGlob: 'files/*', maxRisk: 'write' }] }],
  ['everything, read only', { scope: [{ idGlob: '**', maxRisk: 'read' }] }],
  ['alternatives of namespaces', { scope: [{ idGlob: '{files,mail}/*', maxRisk: 'destructive' }] }],
  ['alternatives of names', { scope: [{ idGlob: 'db/{query,drop-table}', maxRisk: 'destructive' }] }],
  ['a name in any namespace', { scope: [{ idGlob: '*/convert', maxRisk: 'read' }] }],
  ['a globstar prefix', { scope: [{ idGlob: '**/search', maxRisk: 'read' }] }],
  [
    'a ? and a literal dot',
    {
      scope: [
        { idGlob: 'f?les/*', maxRisk: 'destructive' },
        { idGlob: 'image.tools/*', maxRisk: 'write' },
      ],
    },
  ],
  [
    'a dot that is not a wildcard',
    {
      scope: [
        { idGlob: 'image?tools/*', maxRisk: 'write' },
        { idGlob: 'imagextools/*', maxRisk: 'write' },
      ],
    },
  ],
  [
    'clauses with their own risk',
    {
      scope: [
        { idGlob: 'units/*', maxRisk: 'read' },
        { idGlob: 'files/**', maxRisk: 'destructive' },
        { idGlob: 'mail/*', maxRisk: 'read' },
      ],
    },
  ],
  ['categories', { scope: [{ idGlob: '**', maxRisk: 'destructive' }], categories: ['files', 'math'] }],
  ['categories and a glob', { scope: [{ idGlob: 'math/*', maxRisk: 'read' }], categories: ['math'] }],
  ['an empty scope', { scope: [] }],
];

describe.each<Driver>(['embedded', 'elasticsearch'])('ToolIndex conformance: %s', (driver) => {
  describe('on a shared catalog', () => {
    let index: ToolIndex;

    beforeAll(async () => {
      index = make(driver);
      expect(await index.embeddingModel()).toBeNull();
      await index.upsert(await indexed(DOCS), MODEL);
    });

    it('lists every id and records the embedding model', async () => {
      expect((await index.ids()).sort()).toEqual(ALL_IDS);
      expect(await index.embeddingModel()).toBe(MODEL);
      await expect(index.ping()).resolves.toBeUndefined();
    });

    it.each(CLEAR_QUERIES)('ranks lexically: %s -> %s', async (query, expected) => {
      const hits = await index.lexical(query, 5, everything);
      expect(hits[0]).toMatchObject({ id: expected, version: '1.0.0', rank: 1 });
      expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    });

    it('says which query terms a lexical hit holds', async () => {
      const [first] = await index.lexical('convert 10 miles to kilometers of zebras', 5, everything);
      expect(first.id).toBe('units/convert');
      expect([...(first.matchedTerms ?? [])].sort()).toEqual(['10', 'convert', 'kilometer', 'mile']);
    });

    it('returns nothing for a query without words, or for k = 0', async () => {
      expect(await index.lexical('the of and', 5, everything)).toEqual([]);
      expect(await index.lexical('convert', 0, everything)).toEqual([]);
    });

    it('ranks semantically by the best of each tool’s vectors and reports cosines', async () => {
      for (const doc of DOCS) {
        const [query] = await embedder.embed([doc.exampleQueries[1]], 'query');
        const hits = await index.semantic(query, 5, everything, MODEL);
        expect(hits[0].id).toBe(doc.id);
        expect(hits[0].score).toBeCloseTo(1, 5);
      }
      const [query] = await embedder.embed(['convert the temperature of my money file'], 'query');
      const hits = await index.semantic(query, 50, everything, MODEL);
      expect(hits.map((h) => h.id).sort()).toEqual(ALL_IDS);
      const vectors = new Map((await indexed(DOCS)).map((t) => [t.doc.id, t.vectors]));
      for (const hit of hits) {
        const best = Math.max(...(vectors.get(hit.id) as Float32Array[]).map((v) => dot(v, query)));
        expect(hit.score).toBeCloseTo(best, 4);
      }
    });

    it('never mixes vector spaces: another model finds nothing', async () => {
      const [query] = await embedder.embed(['open the readme file'], 'query');
      expect(await index.semantic(query, 5, everything, 'another-model')).toEqual([]);
    });

    it.each(FILTERS)('filters inside, on both sides: %s', async (_, filter) => {
      const expected = allowed(filter);
      const [query] = await embedder.embed([EVERY_TOOL], 'query');
      expect((await index.lexical(EVERY_TOOL, 50, filter)).map((h) => h.id).sort()).toEqual(expected);
      expect((await index.semantic(query, 50, filter, MODEL)).map((h) => h.id).sort()).toEqual(expected);
      // The best hits of a narrow query are still only allowed ones.
      for (const hit of await index.lexical('delete file', 3, filter)) expect(expected).toContain(hit.id);
    });
  });

  describe('with what tenants learned', () => {
    // globex's runs tried to make mail/send the answer to unit conversions, and taught weather/forecast its own jargon.
    const POISON = 'convert 10 miles to kilometers in units of length';
    const JARGON = 'zorblax the quarterly figures';
    const learnedDocs = DOCS.map((doc) =>
      doc.id === 'mail/send' ? { ...doc, learned: { globex: [POISON, `${POISON} now`], acme: ['email the team'] } } : doc.id === 'weather/forecast' ? { ...doc, learned: { globex: [JARGON] } } : doc,
    );
    let learning: ToolIndex;
    let baseline: ToolIndex;
    let plain: ToolIndex;
    const acme = { ...everything, tenant: 'acme' };
    const globex = { ...everything, tenant: 'globex' };
    /** Only acme's own learning: what acme must see whatever globex's runs taught. */
    const acmeOnly = DOCS.map((doc) => (doc.id === 'mail/send' ? { ...doc, learned: { acme: ['email the team'] } } : doc));
    /** acme's learning as plain text of the documents: what a one-tenant index held before learning was per tenant. */
    const asText = DOCS.map((doc) => (doc.id === 'mail/send' ? { ...doc, usageQueries: ['email the team'] } : doc));
    const TEXTS = [POISON, 'send an email', 'email the team', EVERY_TOOL];

    beforeAll(async () => {
      [learning, baseline, plain] = [make(driver), make(driver), make(driver)];
      await learning.upsert(await indexed(learnedDocs), MODEL);
      await baseline.upsert(await indexed(acmeOnly), MODEL);
      await plain.upsert(await indexed(asText), MODEL);
    });

    it('lets a tenant find a tool by what its own runs taught, and no one else', async () => {
      const [hit] = await learning.lexical('zorblax quarterly figures', 5, globex);
      expect(hit).toMatchObject({ id: 'weather/forecast', rank: 1 });
      expect([...(hit.matchedTerms ?? [])].sort()).toEqual(['figure', 'quarterly', 'zorblax']);
      expect(await learning.lexical('zorblax quarterly figures', 5, acme)).toEqual([]);
      expect(await learning.lexical('zorblax quarterly figures', 5, everything)).toEqual([]);
      const [query] = await embedder.embed([JARGON], 'query');
      expect((await learning.semantic(query, 1, globex, MODEL))[0]).toMatchObject({ id: 'weather/forecast', score: expect.closeTo(1, 4) });
      expect((await learning.semantic(query, 1, acme, MODEL))[0]?.id).not.toBe('weather/forecast');
    });

    it("ranks another tenant's queries as if the poisoner's runs never happened", async () => {
      for (const text of TEXTS) {
        const [seen, clean] = await Promise.all([learning.lexical(text, 10, acme), baseline.lexical(text, 10, acme)]);
        expect(seen.map((h) => [h.id, [...(h.matchedTerms ?? [])].sort()])).toEqual(clean.map((h) => [h.id, [...(h.matchedTerms ?? [])].sort()]));
        for (const [i, hit] of seen.entries()) expect(hit.score).toBeCloseTo(clean[i].score, 3);
        const [vector] = await embedder.embed([text], 'query');
        const [near, cleanNear] = await Promise.all([learning.semantic(vector, 10, acme, MODEL), baseline.semantic(vector, 10, acme, MODEL)]);
        expect(near.map((h) => h.id)).toEqual(cleanNear.map((h) => h.id));
        for (const [i, hit] of near.entries()) expect(hit.score).toBeCloseTo(cleanNear[i].score, 4);
      }
      // The poisoner itself gets what it taught.
      const rankOf = (hits: { id: string; rank: number }[]) => hits.find((h) => h.id === 'mail/send')?.rank ?? Number.POSITIVE_INFINITY;
      expect(rankOf(await learning.lexical(POISON, 10, globex))).toBeLessThan(rankOf(await baseline.lexical(POISON, 10, globex)));
    });

    // Elasticsearch scores a tenant's text and the shared text as one BM25F field, with its documented approximations: exact on the embedded driver only.
    if (driver === 'embedded')
      it('scores one tenant exactly as when its learning was plain document text', async () => {
        for (const text of TEXTS) {
          const [own, before] = await Promise.all([learning.lexical(text, 10, acme), plain.lexical(text, 10, everything)]);
          expect(own).toEqual(before);
          const [vector] = await embedder.embed([text], 'query');
          expect(await learning.semantic(vector, 10, acme, MODEL)).toEqual(await plain.semantic(vector, 10, everything, MODEL));
        }
      });

    it('filters learned matches like any other', async () => {
      const [query] = await embedder.embed([JARGON], 'query');
      const noWeather = { scope: [{ idGlob: '{files,mail}/*', maxRisk: 'destructive' as const }], tenant: 'globex' };
      expect((await learning.lexical(JARGON, 5, noWeather)).map((h) => h.id)).not.toContain('weather/forecast');
      expect((await learning.semantic(query, 50, noWeather, MODEL)).map((h) => h.id)).not.toContain('weather/forecast');
    });

    it('forgets what a replaced or removed document had learned', async () => {
      const index = make(driver);
      await index.upsert(await indexed(learnedDocs), MODEL);
      await index.upsert(await indexed([DOCS.find((d) => d.id === 'weather/forecast') as ToolDocument]), MODEL);
      expect(await index.lexical(JARGON, 5, globex)).toEqual([]);
      await index.remove(['mail/send']);
      expect((await index.lexical(POISON, 1, globex))[0]?.id).toBe('units/convert');
    });
  });

  describe('in Chinese, Japanese and Korean', () => {
    // Written without spaces: both drivers index character bigrams, so a query meets a description however either is segmented.
    const CJK_DOCS = [
      tool('units/convert', 'read', 'math', '单位换算', '在长度、重量和温度的计量单位之间换算数值，例如英里和公里、华氏度和摄氏度', ['五公斤是多少磅']),
      tool('currency/convert', 'read', 'finance', '货币兑换', '按汇率把一种货币的金额兑换成另一种货币，例如美元兑人民币', ['一百欧元能换多少日元']),
      tool('files/read', 'read', 'files', 'ファイルを読む', '沙箱フォルダのテキストファイルを読んで内容を返す', []),
      tool('weather/forecast', 'read', 'weather', '날씨 예보', '도시의 기온과 비, 바람 예보를 알려 줍니다', []),
    ];
    let cjk: ToolIndex;
    const reference = new EmbeddedToolIndex();

    beforeAll(async () => {
      cjk = make(driver);
      const tools = await indexed(CJK_DOCS);
      await Promise.all([cjk.upsert(tools, MODEL), reference.upsert(tools, MODEL)]);
    });

    it.each([
      ['把10英里换算成公里', 'units/convert', ['英里', '换算', '公里']],
      ['美元兑日元的汇率是多少', 'currency/convert', ['美元', '汇率']],
      ['メモのファイルを読んで', 'files/read', ['ファ', 'ァイ', 'イル', '読ん']],
      ['서울 날씨 예보', 'weather/forecast', ['날씨', '예보']],
    ])('finds %s -> %s by its bigrams, and names them as written', async (query, expected, terms) => {
      const [first] = await cjk.lexical(query, 3, everything);
      expect(first?.id).toBe(expected);
      expect(terms.every((term) => first.matchedTerms?.includes(term))).toBe(true);
      // The same bigrams on both drivers, so the same BM25 (Lucene keeps lengths in one byte: close, not exact).
      const [same] = await reference.lexical(query, 3, everything);
      expect(Math.abs(first.score - same.score) / same.score).toBeLessThan(0.05);
    });
  });

  it('upserts, replaces and removes by id', async () => {
    const index = make(driver);
    await index.upsert(await indexed(DOCS.slice(0, 5)), MODEL);
    expect((await index.ids()).sort()).toEqual(
      DOCS.slice(0, 5)
        .map((d) => d.id)
        .sort(),
    );

    const replaced = { ...DOCS[2], version: '1.1.0', description: 'Read a parquet dataset', exampleQueries: ['load the parquet data'] };
    await index.upsert(await indexed([replaced]), MODEL);
    expect(await index.lexical('parquet', 5, everything)).toMatchObject([{ id: 'files/read', version: '1.1.0' }]);
    expect(await index.lexical('sandbox content', 5, everything)).not.toContainEqual(expect.objectContaining({ id: 'files/read' }));
    const [query] = await embedder.embed(['open the readme file'], 'query');
    expect((await index.semantic(query, 5, everything, MODEL))[0]?.id).not.toBe('files/read');

    await index.remove(['files/read', 'units/convert', 'not/there']);
    expect((await index.ids()).sort()).toEqual(['currency/convert', 'files/delete', 'files/write']);
    expect(await index.lexical('parquet', 5, everything)).toEqual([]);
    expect((await index.semantic(query, 5, everything, MODEL)).map((h) => h.id)).not.toContain('files/read');

    await index.remove(await index.ids());
    expect(await index.ids()).toEqual([]);
    expect(await index.embeddingModel()).toBeNull();
  });

  it("keeps every usage query of a much-used tool, past Elasticsearch's default of 10,000 nested objects", async () => {
    const index = make(driver);
    const narrow: Embedder = new HashingEmbedder(16);
    const usageQueries = [...Array.from({ length: 10_050 }, (_, i) => `order number ${i} shipped`), 'zorblax the quarterly figures'];
    await index.upsert(await indexed([{ ...DOCS[0], usageQueries }], narrow), narrow.model);
    const [newest] = await narrow.embed(['zorblax the quarterly figures'], 'query');
    expect((await index.semantic(newest, 1, everything, narrow.model))[0]).toMatchObject({ id: DOCS[0].id, score: expect.closeTo(1, 5) });
  });

  it('switches vector space when the funnel re-embeds everything with another model', async () => {
    const index = make(driver);
    await index.upsert(await indexed(DOCS), MODEL);
    const other: Embedder = new HashingEmbedder(128);
    // What the funnel does on a model change: remove everything, then upsert with the new vectors.
    await index.remove(await index.ids());
    await index.upsert(await indexed(DOCS, other), other.model);
    expect(await index.embeddingModel()).toBe(other.model);
    expect((await index.ids()).sort()).toEqual(ALL_IDS);
    const [oldQuery] = await embedder.embed(['erase temp.csv'], 'query');
    const [newQuery] = await other.embed(['erase temp.csv'], 'query');
    expect(await index.semantic(oldQuery, 5, everything, MODEL)).toEqual([]);
    expect((await index.semantic(newQuery, 5, everything, other.model))[0]).toMatchObject({ id: 'files/delete', score: expect.closeTo(1, 5) });
  });
});

describe('both drivers rank alike', () => {
  const AGREEMENT_QUERIES = [
    ...CLEAR_QUERIES.map(([q]) => q),
    'file',
    'search',
    'table',
    'money',
    'meeting notes',
    'read the file in the folder',
    'temperature',
    'message',
    'create',
    'text',
    'database',
    'the top result',
    'rain in paris',
    'remove old data',
  ];
  let embedded: ToolIndex;
  let es: ToolIndex;

  beforeAll(async () => {
    embedded = new EmbeddedToolIndex();
    es = elasticsearch();
    const tools = await indexed(DOCS);
    await Promise.all([embedded.upsert(tools, MODEL), es.upsert(tools, MODEL)]);
  });

  const top5 = (hits: { id: string }[]) =>
    hits
      .slice(0, 5)
      .map((h) => h.id)
      .sort();

  it('gives the same lexical top 5 on at least 90% of queries, with the same BM25 scale', async () => {
    let same = 0;
    for (const query of AGREEMENT_QUERIES) {
      const [a, b] = await Promise.all([embedded.lexical(query, 10, everything), es.lexical(query, 10, everything)]);
      if (JSON.stringify(top5(a)) === JSON.stringify(top5(b))) same++;
      expect(b[0].id).toBe(a[0].id);
      // Lucene stores document lengths in one byte: scores agree closely, not exactly.
      expect(Math.abs(b[0].score - a[0].score) / a[0].score).toBeLessThan(0.05);
    }
    expect(same / AGREEMENT_QUERIES.length).toBeGreaterThanOrEqual(0.9);
  });

  it('gives the same semantic top 5 with the same cosines', async () => {
    for (const query of AGREEMENT_QUERIES) {
      const [vector] = await embedder.embed([query], 'query');
      const [a, b] = await Promise.all([embedded.semantic(vector, 5, everything, MODEL), es.semantic(vector, 5, everything, MODEL)]);
      expect(b.map((h) => h.score)).toEqual(a.map((h) => expect.closeTo(h.score, 4)));
      // The hashing embedder makes exact ties (often at 0): kNN keeps its own pick of tools tied at the cut.
      const cut = a[a.length - 1].score + 1e-4;
      expect(top5(b.filter((h) => h.score > cut))).toEqual(top5(a.filter((h) => h.score > cut)));
    }
  });
});

describe('Elasticsearch driver specifics', () => {
  let tools: IndexedTool[];

  beforeAll(async () => {
    tools = await indexed(DOCS);
  });

  const concreteIndices = async (prefix: string) => Object.keys(await admin.indices.get({ index: `${prefix}-*` }));
  const aliasTarget = async (prefix: string) => Object.keys(await admin.indices.getAlias({ name: prefix }));

  it('persists: a new instance on the same prefix sees the documents and the model', async () => {
    const prefix = `${RUN}-persist`;
    await elasticsearch(prefix).upsert(tools, MODEL);
    const again = elasticsearch(prefix);
    expect((await again.ids()).sort()).toEqual(ALL_IDS);
    expect(await again.embeddingModel()).toBe(MODEL);
    expect((await again.lexical('weather forecast rain', 1, everything))[0].id).toBe('weather/forecast');
    const [query] = await embedder.embed(['erase temp.csv'], 'query');
    expect((await again.semantic(query, 1, everything, MODEL))[0].id).toBe('files/delete');
  });

  it('reindexes behind the alias: searches during and after always see a complete index', async () => {
    const prefix = `${RUN}-reindex`;
    const index = elasticsearch(prefix);
    await index.upsert(tools, MODEL);
    const [before] = await aliasTarget(prefix);
    const reader = elasticsearch(prefix);
    let done = false;
    let searches = 0;
    const reading = (async () => {
      while (!done) {
        expect((await reader.lexical(EVERY_TOOL, 50, everything)).length).toBe(DOCS.length);
        searches++;
      }
    })();
    const renamed = tools.map((t) => ({ ...t, doc: { ...t.doc, version: '2.0.0' } }));
    await index.reindex(renamed, MODEL).finally(() => {
      done = true;
    });
    await reading;
    expect(searches).toBeGreaterThan(0);
    const after = await aliasTarget(prefix);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect(await concreteIndices(prefix)).toEqual(after);
    const hits = await reader.lexical(EVERY_TOOL, 50, everything);
    expect(hits.map((h) => h.version)).toEqual(DOCS.map(() => '2.0.0'));
  });

  it('moves to a new index on a model change without removal, keeping other tools findable by text only', async () => {
    const prefix = `${RUN}-switch`;
    const index = elasticsearch(prefix);
    await index.upsert(tools, MODEL);
    const [before] = await aliasTarget(prefix);
    const other: Embedder = new HashingEmbedder(64);
    await index.upsert(await indexed(DOCS.slice(0, 2), other), other.model);
    expect(await aliasTarget(prefix)).not.toEqual([before]);
    expect(await concreteIndices(prefix)).toHaveLength(1);
    expect(await index.embeddingModel()).toBe(other.model);
    expect((await index.ids()).sort()).toEqual(ALL_IDS);
    expect((await index.lexical('weather forecast', 1, everything))[0].id).toBe('weather/forecast');
    const [query] = await other.embed(['weather forecast for berlin this weekend'], 'query');
    expect((await index.semantic(query, 50, everything, other.model)).map((h) => h.id).sort()).toEqual(['currency/convert', 'units/convert']);
  });

  it('reports an unreachable node as INDEX_UNAVAILABLE with the cause', async () => {
    const down = elasticsearch(`${RUN}-down`, 'http://127.0.0.1:1');
    const unavailable = { code: ErrorCode.INDEX_UNAVAILABLE, message: expect.stringMatching(/^Elasticsearch at http:\/\/127\.0\.0\.1:1 is unavailable: .+/) };
    await expect(down.lexical('convert', 5, everything)).rejects.toMatchObject(unavailable);
    await expect(down.ping()).rejects.toMatchObject(unavailable);
    await expect(down.upsert(tools, MODEL)).rejects.toMatchObject(unavailable);
  });

  it('recovers by itself when Elasticsearch comes back', async () => {
    const target = new URL(process.env.ELASTICSEARCH_URL as string);
    const proxy = new TcpProxy(target.hostname, Number(target.port));
    const port = await proxy.open(0);
    try {
      const index = elasticsearch(`${RUN}-recover`, `http://127.0.0.1:${port}`);
      await index.upsert(tools, MODEL);
      await proxy.close();
      await expect(index.ping()).rejects.toMatchObject({ code: ErrorCode.INDEX_UNAVAILABLE });
      await expect(index.lexical('convert', 5, everything)).rejects.toMatchObject({ code: ErrorCode.INDEX_UNAVAILABLE });
      await proxy.open(port);
      await expect(index.ping()).resolves.toBeUndefined();
      expect((await index.lexical('weather forecast rain', 1, everything))[0].id).toBe('weather/forecast');
    } finally {
      await proxy.close();
    }
  });
});

/** Forwards TCP to Elasticsearch; closing it drops every connection, as a node going away does. */
class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  open(port: number): Promise<number> {
    const server = createServer((client) => {
      const upstream = new Socket();
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      upstream.connect(this.port, this.host);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server = server;
    return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
