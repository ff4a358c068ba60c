import type { ToolDocument } from '../documents/tool-document';
import { HashingEmbedder } from '../embedding/hashing.embedder';
import { EmbeddedToolIndex } from './embedded-tool-index';

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
});
