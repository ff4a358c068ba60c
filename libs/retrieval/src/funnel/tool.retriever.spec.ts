import { ErrorCode } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';
import { EmbeddedToolIndex } from '../embedded/embedded.tool-index';
import { CachedEmbedder } from '../embedding/cached.embedder';
import { Embedder, type EmbeddingKind } from '../embedding/embedder.port';
import { HashingEmbedder } from '../embedding/hashing.embedder';
import { FeatureReranker } from '../rerank/feature.reranker';
import { type RerankCandidate, Reranker } from '../rerank/reranker.port';
import type { FusedCandidate } from './rank.fusion';
import { reciprocalRankFusion } from './rank.fusion';
import { DEFAULT_FUNNEL, LEXICAL_ONLY, ToolRetriever } from './tool.retriever';

const doc = (id: string, description: string, exampleQueries: string[] = []): ToolDocument => ({
  id,
  version: '1',
  name: id,
  title: id,
  description,
  category: [],
  tags: [],
  parameters: [],
  exampleQueries,
  usageQueries: [],
  risk: 'read',
});
const everything = { scope: [{ idGlob: '**', maxRisk: 'destructive' as const }] };

describe('reciprocalRankFusion', () => {
  it('adds weighted reciprocal ranks and keeps each side', () => {
    const fused = reciprocalRankFusion(
      [
        { id: 'a', version: '1', rank: 1, score: 9, matchedTerms: ['x'] },
        { id: 'b', version: '1', rank: 2, score: 5 },
      ],
      [
        { id: 'b', version: '1', rank: 1, score: 0.9 },
        { id: 'c', version: '1', rank: 2, score: 0.8 },
      ],
      { lexical: 1, semantic: 1 },
      60,
    );
    expect(fused.map((c) => c.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]).toMatchObject({ fused: 1 / 62 + 1 / 61, lexical: { rank: 2 }, semantic: { rank: 1, score: 0.9 } });
    expect(fused[1].semantic).toBeUndefined();
    const lexicalOnly = reciprocalRankFusion([{ id: 'a', version: '1', rank: 1, score: 1 }], [{ id: 'c', version: '1', rank: 1, score: 1 }], { lexical: 1, semantic: 0 });
    expect(lexicalOnly.map((c) => [c.id, c.fused])).toEqual([
      ['a', 1 / 61],
      ['c', 0],
    ]);
  });
});

/** Counts the texts it is asked to embed. */
class CountingEmbedder extends Embedder {
  readonly model = 'counting';
  readonly dimensions = 384;
  embedded = 0;
  private readonly inner = new HashingEmbedder();
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return this.inner.embed(texts);
  }
}

describe('ToolRetriever', () => {
  const docs = [doc('weather', 'rain and sun forecast', ['will it rain tomorrow']), doc('stocks', 'share prices and market quotes')];

  it('fuses both sides and explains every stage', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder());
    await retriever.indexTools(docs);
    const { hits, noMatch } = await retriever.search('will it rain tomorrow', 5, everything);
    expect(noMatch).toBe(false);
    expect(hits[0]).toMatchObject({ id: 'weather', rank: 1, lexical: { rank: 1 }, semantic: { rank: 1 } });
    expect(hits[0].semantic?.score).toBeCloseTo(1, 5);
  });

  it('answers no match instead of noise when nothing is close', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder(), { ...DEFAULT_FUNNEL, minSimilarity: 0.5 });
    await retriever.indexTools(docs);
    expect(await retriever.search('zebra xylophone', 5, everything)).toEqual({ noMatch: true, hits: [] });
  });

  it('works lexically without an embedder, and flags a model change for reindexing', async () => {
    const index = new EmbeddedToolIndex();
    const lexical = new ToolRetriever(index, null);
    await lexical.indexTools(docs);
    expect(await index.embeddingModel()).toBe(LEXICAL_ONLY);
    expect((await lexical.search('share prices', 5, everything)).hits.map((h) => h.id)).toEqual(['stocks']);
    expect(await new ToolRetriever(index, new HashingEmbedder()).needsReindex()).toBe(true);
    expect(await lexical.needsReindex()).toBe(false);
  });

  it('searches a request without the quoted values it gives (a text to write), but with a quote that names a tool', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder());
    await retriever.indexTools([doc('file_write', 'write text into a file'), doc('meeting_room_booking', 'book a meeting room for a team meeting'), ...docs]);
    const top = async (text: string) => (await retriever.search(text, 5, everything)).hits[0]?.id;
    expect(await top("Create a file with the content 'Team meeting in the big meeting room at 3 PM'")).toBe('file_write');
    expect(await top("Run the tool called 'meeting_room_booking' for the team")).toBe('meeting_room_booking');
    // Quoted past queries are embedded the same way: a request worded like one finds its tool.
    const learned = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder(), { ...DEFAULT_FUNNEL, weights: { lexical: 0, semantic: 1 } });
    await learned.indexTools([doc('file_write', 'store text', ["save a note with the text 'stock prices rose sharply today in every market we follow'"]), doc('notes', 'save a note with text')]);
    expect((await learned.search("save a note with the text 'hello'", 5, everything)).hits[0]?.id).toBe('file_write');
  });

  it('embeds each distinct text once across reindexing and repeated queries', async () => {
    const counting = new CountingEmbedder();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new CachedEmbedder(counting, 2));
    await retriever.indexTools(docs);
    await retriever.indexTools(docs);
    await retriever.search('rain', 5, everything);
    await retriever.search('rain', 5, everything);
    expect(counting.embedded).toBe(3 + 1);
  });

  it.each([
    ['with vectors', () => new CountingEmbedder()],
    ['lexical only', () => null],
  ])('re-indexes only the documents that changed since it put them in (%s), and any the index lost', async (_, embedder) => {
    const index = new EmbeddedToolIndex();
    const retriever = new ToolRetriever(index, embedder());
    const upserts = jest.spyOn(index, 'upsert');
    await retriever.indexTools(docs);
    const upserted = () => upserts.mock.calls.flatMap(([tools]) => tools.map((t) => t.doc.id));
    upserts.mockClear();
    // One tool learned one query: only that tool goes in again, and is found by it.
    const learned = { ...docs[1], usageQueries: ['how is ACME trading'] };
    await retriever.indexTools([docs[0], learned]);
    expect(upserted()).toEqual(['stocks']);
    expect((await retriever.search('how is ACME trading', 1, everything)).hits.map((h) => h.id)).toEqual(['stocks']);
    upserts.mockClear();
    await retriever.indexTools([docs[0], learned]);
    expect(upserted()).toEqual([]);
    // A document removed from the index behind the retriever's back goes in again, unchanged or not.
    await index.remove(['weather']);
    await retriever.indexTools([docs[0], learned]);
    expect([...new Set(upserted())]).toEqual(['weather']);
    expect((await retriever.search('will it rain tomorrow', 1, everything)).hits.map((h) => h.id)).toEqual(['weather']);
  });

  it('reports indexing progress batch by batch', async () => {
    const many = Array.from({ length: 70 }, (_, i) => doc(`tool-${i}`, `tool number ${i}`));
    const progress: [number, number][] = [];
    await new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder()).indexTools(many, (done, total) => progress.push([done, total]));
    expect(progress).toEqual([
      [32, 70],
      [64, 70],
      [70, 70],
    ]);
  });

  it('searches a request by its words alone when the model cannot read its script, and embeds one it can', async () => {
    const english = Object.assign(new CountingEmbedder(), { languages: ['en'] });
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new CachedEmbedder(english));
    await retriever.indexTools([...docs, doc('currency', '货币兑换：按汇率把美元换成人民币')]);
    const before = english.embedded;
    const { hits } = await retriever.search('美元兑人民币的汇率', 5, everything);
    expect(english.embedded).toBe(before);
    expect(hits[0]).toMatchObject({ id: 'currency', lexical: { rank: 1 } });
    expect(hits.every((hit) => hit.semantic === undefined)).toBe(true);
    expect((await retriever.search('rain tomorrow', 5, everything)).hits[0].semantic).toBeDefined();
    expect(english.embedded).toBe(before + 1);
    // A model that reads the language (or says nothing of its languages) embeds it.
    const chinese = Object.assign(new CountingEmbedder(), { languages: ['en', 'zh'] });
    const bilingual = new ToolRetriever(new EmbeddedToolIndex(), chinese);
    await bilingual.indexTools(docs);
    const indexed = chinese.embedded;
    await bilingual.search('美元兑人民币的汇率', 5, everything);
    expect(chinese.embedded).toBe(indexed + 1);
  });
});

/** Reverses what it is given and records each call, so a test sees what the funnel hands a reranker. */
class ReversingReranker extends Reranker {
  readonly name = 'reversing';
  calls: { query: string; ids: string[]; withDocs: boolean }[] = [];
  async rerank(query: string, candidates: readonly RerankCandidate[]): Promise<FusedCandidate[]> {
    this.calls.push({ query, ids: candidates.map((c) => c.candidate.id), withDocs: candidates.every((c) => c.doc !== undefined) });
    return [...candidates].reverse().map(({ candidate }, i) => ({ ...candidate, rerank: { reranker: this.name, score: -i, rank: i + 1 } }));
  }
}

describe('ToolRetriever rerank stage and clauses', () => {
  const catalog = [
    doc('crop-water', 'calculate the water requirement of a crop'),
    doc('plant-growth', 'growth of plants in space agriculture'),
    doc('air-quality', 'air quality and environmental justice data for a city'),
    doc('water-quality', 'water quality of rivers and lakes'),
  ];
  const whole = { ...DEFAULT_FUNNEL, decomposition: null };

  it('reranks only the top fused candidates, with their documents, and keeps every stage on the hit', async () => {
    const reranker = new ReversingReranker();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, { ...whole, rerankDepth: 2 }, reranker);
    await retriever.indexTools(catalog);
    const fused = (await new ToolRetriever(retriever.index, null, whole).search('water quality of a crop', 5, everything)).hits;
    const { hits } = await retriever.search('water quality of a crop', 5, everything);
    expect(reranker.calls).toEqual([{ query: 'water quality of a crop', ids: fused.slice(0, 2).map((h) => h.id), withDocs: true }]);
    expect(hits.map((h) => h.id)).toEqual([fused[1].id, fused[0].id, ...fused.slice(2).map((h) => h.id)]);
    expect(hits[0]).toMatchObject({ rank: 1, lexical: { rank: 2 }, fused: fused[1].fused, rerank: { reranker: 'reversing', rank: 1 } });
    expect(hits[2].rerank).toBeUndefined();
    // Past a costly reranker's depth a hit has no score of its own: it carries the one above it, and the order stays sorted by score.
    const last = hits[1].rerank?.score;
    expect(hits.map((h) => h.score)).toEqual([hits[0].rerank?.score, last, ...hits.slice(2).map(() => last)]);
  });

  it('sorts hits by the score it reports: the rerank score, carried past the rerank depth', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder(), whole, new FeatureReranker());
    await retriever.indexTools(catalog);
    const { hits } = await retriever.search('water quality of a crop', 5, everything);
    expect(hits.length).toBeGreaterThan(2);
    for (const hit of hits) expect(hit.score).toBe(hit.rerank?.score);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    const shallow = (await new ToolRetriever(retriever.index, new HashingEmbedder(), { ...whole, rerankDepth: 1 }, new FeatureReranker()).search('water quality of a crop', 5, everything)).hits;
    expect(shallow.map((h) => h.score)).toEqual(shallow.map(() => shallow[0].rerank?.score));
    // Without a reranker, the fused score relative to the best: the first hit 1, in fused order.
    const plain = (await new ToolRetriever(retriever.index, new HashingEmbedder(), whole).search('water quality of a crop', 5, everything)).hits;
    expect(plain.map((h) => h.score)).toEqual(plain.map((h) => h.fused / plain[0].fused));
  });

  it('gives each clause of a multi-part request a slot near the top, saying which clause found it', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, DEFAULT_FUNNEL, new FeatureReranker());
    await retriever.indexTools(catalog);
    const query = 'Calculate the water requirement of my crop. Then check the growth of plants in space. Finally, get air quality data for Paris.';
    const { hits } = await retriever.search(query, 3, everything);
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set(['crop-water', 'plant-growth', 'air-quality']));
    expect(hits.find((h) => h.id === 'plant-growth')?.clause).toEqual({ index: 1, text: 'check the growth of plants in space.' });
    expect(hits.every((h) => h.rerank?.reranker === 'feature')).toBe(true);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
  });

  it('still answers no match with a reranker and clauses', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder(), { ...DEFAULT_FUNNEL, minSimilarity: 0.5 }, new FeatureReranker());
    await retriever.indexTools(catalog);
    expect(await retriever.search('zebra xylophone. Then quartz yodel.', 5, everything)).toEqual({ noMatch: true, hits: [] });
  });
});

/** Embeds queries at once and documents only while its gate is open: an index caught mid-warm-up. */
class GatedEmbedder extends Embedder {
  readonly model = 'gated';
  readonly dimensions = 384;
  private readonly inner = new HashingEmbedder();
  private gate!: Promise<void>;
  private release!: () => void;

  constructor() {
    super();
    this.hold();
  }

  open(): void {
    this.release();
  }

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  async embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    if (kind === 'document') await this.gate;
    return this.inner.embed(texts);
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!condition()) throw new Error('condition never held');
}

describe('ToolRetriever while the index warms up', () => {
  const docs = [doc('weather', 'rain and sun forecast'), doc('stocks', 'share prices and market quotes'), doc('vault/secrets', 'share prices nobody else may see')];
  const stocksOnly = { scope: [{ idGlob: 'stocks', maxRisk: 'read' as const }] };

  it('searches by words before any vector is in and says so on each hit, counting only what the caller may discover', async () => {
    const embedder = new GatedEmbedder();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), embedder);
    const indexing = retriever.indexTools(docs);
    await until(() => retriever.warmup(everything).searchable);
    const early = await retriever.search('share prices', 5, everything);
    expect(early.degraded).toBe('vectors 0/3');
    expect(early.hits.map((h) => [h.id, h.degraded])).toEqual([
      ['stocks', 'vectors 0/3'],
      ['vault/secrets', 'vectors 0/3'],
    ]);
    // A caller who may discover one tool learns nothing of the others, not even how many there are.
    expect((await retriever.search('share prices', 5, stocksOnly)).hits).toEqual([expect.objectContaining({ id: 'stocks', degraded: 'vectors 0/1' })]);
    embedder.open();
    await indexing;
    const warm = await retriever.search('share prices', 5, everything);
    expect(warm.degraded).toBeUndefined();
    expect(warm.hits[0]).toMatchObject({ id: 'stocks', semantic: { rank: 1 } });
    expect(warm.hits[0].degraded).toBeUndefined();
  });

  it('re-indexing keeps the vectors of tools already in: only a new tool is searched by words alone', async () => {
    const embedder = new GatedEmbedder();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), embedder);
    embedder.open();
    await retriever.indexTools(docs.slice(0, 2));
    embedder.hold();
    const indexing = retriever.indexTools([...docs.slice(0, 2), doc('news', 'headlines of the day')]);
    await until(() => retriever.warmup(everything).vectors !== undefined);
    const { hits } = await retriever.search('share prices', 5, everything);
    expect(hits[0]).toMatchObject({ id: 'stocks', degraded: 'vectors 2/3', semantic: { rank: 1 } });
    embedder.open();
    await indexing;
    expect(retriever.warmup(everything)).toEqual({ searchable: true });
  });

  it('before the first indexing, waits within the bound and then answers INDEX_UNAVAILABLE with a retry hint, never an empty list', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new HashingEmbedder());
    await expect(retriever.searchWhenWarm('share prices', 5, everything, { mode: 'degraded', waitMs: 30 })).rejects.toMatchObject({
      code: ErrorCode.INDEX_UNAVAILABLE,
      message: expect.stringContaining('retry in 1 s'),
      retryAfterSeconds: 1,
    });
    const waiting = retriever.searchWhenWarm('share prices', 5, everything, { mode: 'degraded', waitMs: 5000 });
    await retriever.indexTools(docs);
    expect((await waiting).hits[0].id).toBe('stocks');
  });

  it('degraded: an empty answer while vectors are missing is not trusted; it waits for them and then answers', async () => {
    const embedder = new GatedEmbedder();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), embedder, { ...DEFAULT_FUNNEL, minSimilarity: 0.5 });
    const indexing = retriever.indexTools(docs);
    await until(() => retriever.warmup(everything).searchable);
    await expect(retriever.searchWhenWarm('zebra xylophone', 5, everything, { mode: 'degraded', waitMs: 30 })).rejects.toMatchObject({
      code: ErrorCode.INDEX_UNAVAILABLE,
      message: expect.stringContaining('vectors 0/3'),
    });
    const answered = retriever.searchWhenWarm('zebra xylophone', 5, everything, { mode: 'degraded', waitMs: 5000 });
    embedder.open();
    await indexing;
    // Now "no tool fits" is the index's answer, not a guess made without vectors.
    await expect(answered).resolves.toEqual({ noMatch: true, hits: [] });
  });

  it('wait: holds a search until the vectors the caller may find are in, then answers without the flag', async () => {
    const embedder = new GatedEmbedder();
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), embedder);
    const indexing = retriever.indexTools(docs);
    await until(() => retriever.warmup(everything).searchable);
    let settled = false;
    const held = retriever.searchWhenWarm('share prices', 5, everything, { mode: 'wait', waitMs: 5000 }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBe(false);
    embedder.open();
    await indexing;
    const { hits } = await held;
    expect(hits[0]).toMatchObject({ id: 'stocks', semantic: { rank: 1 } });
    expect(hits[0].degraded).toBeUndefined();
  });
});

describe('ToolRetriever: companions learned from use', () => {
  const learnedDoc = (id: string, description: string, usageQueries: string[], learned?: Record<string, string[]>): ToolDocument => ({
    ...doc(id, description),
    usageQueries,
    ...(learned ? { learned } : {}),
  });
  const together = ['fix my washing machine on monday', 'the dishwasher leaks, send someone tomorrow', 'oven repair at noon please'];
  const catalog = [
    learnedDoc('repairs/book-visit', 'book a technician visit to repair a home appliance', together),
    learnedDoc('notify/sms', 'send a text message to a phone number', [...together, 'text my brother']),
    learnedDoc('admin/wipe-tenant', 'delete every record of a tenant', together, { acme: ['the fridge is broken, come today', 'the fridge is broken again'] }),
    doc('weather/forecast', 'weather forecast for a city'),
    doc('maps/route', 'driving route between two places'),
  ];
  const readOnly = {
    scope: [
      { idGlob: 'repairs/**', maxRisk: 'destructive' as const },
      { idGlob: 'notify/**', maxRisk: 'destructive' as const },
      { idGlob: 'weather/**', maxRisk: 'destructive' as const },
    ],
  };

  it('ranks the tool a request’s runs always used beside the one it names, and says why', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, { ...DEFAULT_FUNNEL, decomposition: null }, new FeatureReranker());
    await retriever.indexTools(catalog);
    const { hits } = await retriever.search('my dryer is broken, book a technician visit', 2, readOnly);
    expect(hits.map((h) => h.id)).toEqual(['repairs/book-visit', 'notify/sms']);
    expect(hits[1].companion).toEqual({ of: 'repairs/book-visit', share: 1, declared: false });
    const off = new ToolRetriever(retriever.index, null, { ...DEFAULT_FUNNEL, decomposition: null, companions: null }, new FeatureReranker());
    await off.indexTools(catalog);
    expect((await off.search('my dryer is broken, book a technician visit', 2, readOnly)).hits.map((h) => h.companion)).toEqual([undefined, undefined]);
  });

  it('never brings in a companion the caller may not discover, however strongly linked', async () => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, DEFAULT_FUNNEL, new FeatureReranker());
    await retriever.indexTools(catalog);
    for (const tenant of [undefined, 'acme']) {
      const { hits } = await retriever.search('my dryer is broken, book a technician visit', 10, { ...readOnly, tenant });
      expect(hits.map((h) => h.id)).not.toContain('admin/wipe-tenant');
    }
  });

  it("lets one tenant's runs link tools for that tenant only", async () => {
    const shared = [
      learnedDoc('repairs/book-visit', 'book a technician visit to repair a home appliance', [], { acme: together }),
      learnedDoc('notify/sms', 'send a text message to a phone number', [], { acme: together }),
      doc('weather/forecast', 'weather forecast for a city'),
    ];
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, { ...DEFAULT_FUNNEL, decomposition: null }, new FeatureReranker());
    await retriever.indexTools(shared);
    const mine = await retriever.search('book a technician visit', 2, { ...readOnly, tenant: 'acme' });
    const theirs = await retriever.search('book a technician visit', 2, { ...readOnly, tenant: 'globex' });
    expect(mine.hits.find((h) => h.id === 'notify/sms')?.companion?.of).toBe('repairs/book-visit');
    expect(theirs.hits.some((h) => h.companion !== undefined)).toBe(false);
  });
});
