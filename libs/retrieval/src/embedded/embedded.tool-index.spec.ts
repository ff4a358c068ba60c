import { ErrorCode } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';
import { HashingEmbedder } from '../embedding/hashing.embedder';
import { EmbeddedToolIndex } from './embedded.tool-index';

const doc = (id: string, description: string, risk: ToolDocument['risk'] = 'read', category: string[] = []): ToolDocument => ({
  id,
  version: '1.0.0',
  name: id.split('/')[1],
  title: id,
  description,
  category,
  tags: [],
  parameters: [],
  exampleQueries: [],
  usageQueries: [],
  risk,
});

const everything = { scope: [{ idGlob: '**', maxRisk: 'destructive' as const }] };
const embedder = new HashingEmbedder();
const MODEL = embedder.model;

describe('EmbeddedToolIndex', () => {
  let index: EmbeddedToolIndex;
  const docs = [
    doc('units/convert', 'Convert a quantity between units of length, mass and temperature', 'read', ['math']),
    doc('currency/convert', 'Convert an amount of money between currencies using exchange rates', 'read', ['finance']),
    doc('files/write', 'Write a text file into the sandbox folder', 'write', ['files']),
  ];

  beforeEach(async () => {
    index = new EmbeddedToolIndex();
    const vectors = await embedder.embed(docs.map((d) => d.description));
    await index.upsert(
      docs.map((d, i) => ({ doc: d, vectors: [vectors[i]] })),
      MODEL,
    );
  });

  it('ranks lexically with BM25 and says which terms matched', async () => {
    const [first, second] = await index.lexical('convert 10 miles to kilometres of length', 5, everything);
    expect(first).toMatchObject({ id: 'units/convert', rank: 1, matchedTerms: expect.arrayContaining(['convert', 'length']) });
    expect(second.id).toBe('currency/convert');
    expect(first.score).toBeGreaterThan(second.score);
  });

  it('ranks semantically by the closest vector, and only in the same vector space', async () => {
    const [query] = await embedder.embed(['write a text file']);
    const hits = await index.semantic(query, 2, everything, MODEL);
    expect(hits.map((h) => h.id)[0]).toBe('files/write');
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(await index.semantic(query, 2, everything, 'another-model')).toEqual([]);
    expect(await index.embeddingModel()).toBe(MODEL);
  });

  it('never returns what the filter excludes: glob, risk or category, on either side', async () => {
    const [query] = await embedder.embed(['convert money write file']);
    const onlyUnits = { scope: [{ idGlob: 'units/*', maxRisk: 'read' as const }] };
    expect((await index.lexical('convert money', 5, onlyUnits)).map((h) => h.id)).toEqual(['units/convert']);
    expect((await index.semantic(query, 5, onlyUnits, MODEL)).map((h) => h.id)).toEqual(['units/convert']);
    const readOnly = { scope: [{ idGlob: '**', maxRisk: 'read' as const }] };
    expect(await index.lexical('write file', 5, readOnly)).toEqual([]);
    expect((await index.semantic(query, 5, readOnly, MODEL)).map((h) => h.id)).not.toContain('files/write');
    expect((await index.lexical('convert', 5, { ...everything, categories: ['finance'] })).map((h) => h.id)).toEqual(['currency/convert']);
    expect(await index.lexical('convert', 5, { scope: [] })).toEqual([]);
  });

  it('replaces on upsert and forgets on remove', async () => {
    await index.upsert([{ doc: doc('files/write', 'Render charts as PNG images'), vectors: [] }], MODEL);
    expect((await index.lexical('sandbox', 5, everything)).map((h) => h.id)).toEqual([]);
    expect((await index.lexical('charts', 5, everything)).map((h) => h.id)).toEqual(['files/write']);
    await index.remove(['files/write', 'nope/missing']);
    expect((await index.ids()).sort()).toEqual(['currency/convert', 'units/convert']);
  });

  it('returns nothing for a query with no content words and honours k', async () => {
    expect(await index.lexical('the of and', 5, everything)).toEqual([]);
    expect(await index.lexical('convert', 1, everything)).toHaveLength(1);
  });

  it('answers the same after replacing and removing most of a large catalog as a fresh index of what is left', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => doc(`t${i % 7}/tool${i}`, `tool number ${i} handles ${['mail', 'maps', 'money', 'music'][i % 4]} tasks ${i % 11}`));
    const vectors = await embedder.embed(many.map((d) => d.description));
    const tools = many.map((d, i) => ({ doc: d, vectors: [vectors[i]] }));
    await index.upsert(tools, MODEL);
    const replaced = tools.slice(0, 2500).map((t) => ({ doc: { ...t.doc, version: '2.0.0' }, vectors: t.vectors }));
    await index.upsert(replaced, MODEL);
    await index.remove(many.slice(2500, 2900).map((d) => d.id));
    const fresh = new EmbeddedToolIndex();
    const own = await embedder.embed(docs.map((d) => d.description));
    await fresh.upsert([...docs.map((d, i) => ({ doc: d, vectors: [own[i]] })), ...tools.slice(2900), ...replaced], MODEL);
    expect((await index.ids()).sort()).toEqual((await fresh.ids()).sort());
    const [query] = await embedder.embed(['money tasks 7']);
    const someTools = { scope: [{ idGlob: 't3/*', maxRisk: 'read' as const }] };
    for (const filter of [everything, someTools]) {
      expect(await index.lexical('money tasks 7', 20, filter)).toEqual(await fresh.lexical('money tasks 7', 20, filter));
      expect(await index.semantic(query, 20, filter, MODEL)).toEqual(await fresh.semantic(query, 20, filter, MODEL));
    }
  });

  it('starts a new vector space on a model change, keeping the other tools findable by text; rejects mixed dimensions', async () => {
    const other = new HashingEmbedder(64);
    const [vector] = await other.embed([docs[0].description]);
    await index.upsert([{ doc: docs[0], vectors: [vector] }], other.model);
    expect(await index.embeddingModel()).toBe(other.model);
    expect((await index.semantic(vector, 5, everything, other.model)).map((h) => h.id)).toEqual(['units/convert']);
    expect((await index.lexical('money', 5, everything)).map((h) => h.id)).toEqual(['currency/convert']);
    await expect(index.upsert([{ doc: docs[1], vectors: [new Float32Array(8)] }], other.model)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
    await expect(index.semantic(new Float32Array(8), 5, everything, other.model)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
  });
});
