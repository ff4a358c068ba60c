import type { ToolDocument } from '../documents/tool-document';
import { Bm25ToolIndex } from './bm25-tool-index';

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

describe('Bm25ToolIndex', () => {
  let index: Bm25ToolIndex;
  beforeEach(async () => {
    index = new Bm25ToolIndex();
    await index.upsert([
      doc('units/convert', 'Convert a quantity between units of length, mass and temperature', 'read', ['math']),
      doc('currency/convert', 'Convert an amount of money between currencies using exchange rates', 'read', ['finance']),
      doc('files/write', 'Write a text file into the sandbox folder', 'write', ['files']),
    ]);
  });

  it('ranks the tool whose text matches best first and explains the match', async () => {
    const [first, second] = await index.search({ text: 'convert 10 miles to kilometres of length', k: 5, filter: everything });
    expect(first).toMatchObject({ id: 'units/convert', explanation: { stage: 'bm25', rank: 1, matchedTerms: expect.arrayContaining(['convert', 'length']) } });
    expect(second.id).toBe('currency/convert');
    expect(first.score).toBeGreaterThan(second.score);
  });

  it('never returns what the filter excludes: glob, risk or category', async () => {
    const onlyUnits = await index.search({ text: 'convert money', k: 5, filter: { scope: [{ idGlob: 'units/*', maxRisk: 'read' }] } });
    expect(onlyUnits.map((h) => h.id)).toEqual(['units/convert']);
    const readOnly = await index.search({ text: 'write file', k: 5, filter: { scope: [{ idGlob: '**', maxRisk: 'read' }] } });
    expect(readOnly).toEqual([]);
    const finance = await index.search({ text: 'convert', k: 5, filter: { ...everything, categories: ['finance'] } });
    expect(finance.map((h) => h.id)).toEqual(['currency/convert']);
    expect(await index.search({ text: 'convert', k: 5, filter: { scope: [] } })).toEqual([]);
  });

  it('replaces on upsert and forgets on remove', async () => {
    await index.upsert([doc('files/write', 'Render charts as PNG images')]);
    expect((await index.search({ text: 'sandbox', k: 5, filter: everything })).map((h) => h.id)).toEqual([]);
    expect((await index.search({ text: 'charts', k: 5, filter: everything })).map((h) => h.id)).toEqual(['files/write']);
    await index.remove(['files/write', 'nope/missing']);
    expect((await index.ids()).sort()).toEqual(['currency/convert', 'units/convert']);
  });

  it('returns nothing for a query with no content words and honours k', async () => {
    expect(await index.search({ text: 'the of and', k: 5, filter: everything })).toEqual([]);
    expect(await index.search({ text: 'convert', k: 1, filter: everything })).toHaveLength(1);
  });
});
