import type { ToolDocument } from '../documents/tool.document';
import { CompanionGraph, type CompanionOptions, DEFAULT_COMPANIONS, withCompanions } from './companion.expander';
import type { RankedCandidate } from './coverage.merger';

const doc = (id: string, usageQueries: string[] = [], learned?: Record<string, string[]>): ToolDocument => ({
  id,
  version: '1.0.0',
  name: id,
  title: id,
  description: '',
  category: [],
  tags: [],
  parameters: [],
  exampleQueries: [],
  usageQueries,
  risk: 'read',
  ...(learned ? { learned } : {}),
});

const ranked = (...ids: string[]): RankedCandidate[] => ids.map((id, i) => ({ id, version: '1.0.0', fused: 1 / (i + 1), ranking: 1 - i * 0.1 }));
const ids = (list: RankedCandidate[]) => list.map((c) => c.id);
const byRanking = (c: RankedCandidate) => c.ranking;
const anyone = (id: string): RankedCandidate => ({ id, version: '1.0.0', fused: 0 });

describe('companions learned from the requests that led to tools', () => {
  // Three of the four requests that booked a table also texted the guests; one also paid a deposit.
  const docs = [
    doc('book-table', ['dinner for six at eight, tell the guests', 'a table by the window and text everyone', 'reserve for two friday and sms my wife', 'reserve brunch, pay the deposit']),
    doc('send-sms', ['dinner for six at eight, tell the guests', 'a table by the window and text everyone', 'reserve for two friday and sms my wife', 'text mum happy birthday']),
    doc('pay-deposit', ['reserve brunch, pay the deposit']),
    doc('weather'),
  ];

  it('links tools by the share of one tool’s requests that also used the other, and needs more than one shared request', () => {
    const graph = CompanionGraph.fromDocuments(docs);
    expect(graph.companionsOf('book-table', undefined)).toEqual([{ id: 'send-sms', share: 0.75, declared: false }]);
    // One shared request (the deposit) is an anecdote at the default bar of two.
    expect(graph.companionsOf('pay-deposit', undefined)).toEqual([]);
    expect(graph.companionsOf('pay-deposit', undefined, { ...DEFAULT_COMPANIONS, minTogether: 1 })).toEqual([{ id: 'book-table', share: 1, declared: false }]);
    expect(graph.companionsOf('weather', undefined)).toEqual([]);
  });

  it('ignores case and spacing when matching requests, and a catch-all request that led to many tools', () => {
    const loud = [doc('a', ['Plan My Trip', 'plan  my trip again']), doc('b', ['plan my trip', 'PLAN MY TRIP AGAIN'])];
    expect(CompanionGraph.fromDocuments(loud).companionsOf('a', undefined)).toEqual([{ id: 'b', share: 1, declared: false }]);
    const everything = Array.from({ length: 10 }, (_, i) => doc(`t${i}`, ['do everything', 'and everything else']));
    expect(CompanionGraph.fromDocuments(everything).empty).toBe(true);
  });

  it("keeps what a tenant's runs taught to that tenant's searches", () => {
    const taught = [
      doc('book-table', [], { acme: ['table for 4 and text them', 'table for 2 and text her'] }),
      doc('send-sms', [], { acme: ['table for 4 and text them', 'table for 2 and text her'] }),
    ];
    const graph = CompanionGraph.fromDocuments(taught);
    expect(graph.companionsOf('book-table', 'acme')).toEqual([{ id: 'send-sms', share: 1, declared: false }]);
    expect(graph.companionsOf('book-table', 'globex')).toEqual([]);
    expect(graph.companionsOf('book-table', undefined)).toEqual([]);
  });

  it('counts platform-wide and tenant evidence together for that tenant', () => {
    const mixed = [doc('a', ['shared one'], { acme: ['own one'] }), doc('b', ['shared one'], { acme: ['own one'] })];
    const graph = CompanionGraph.fromDocuments(mixed);
    expect(graph.companionsOf('a', 'acme')).toEqual([{ id: 'b', share: 1, declared: false }]);
    expect(graph.companionsOf('a', undefined)).toEqual([]);
  });

  it('takes the companions a tool declares, one way, ignoring itself and tools not in the index', () => {
    const declaring = [{ ...doc('geo/lookup'), companions: ['weather/forecast', 'geo/lookup', 'gone/tool'] }, doc('weather/forecast')];
    const graph = CompanionGraph.fromDocuments(declaring);
    expect(graph.companionsOf('geo/lookup', undefined)).toEqual([{ id: 'weather/forecast', share: 1, declared: true }]);
    expect(graph.companionsOf('weather/forecast', undefined)).toEqual([]);
  });
});

describe('pulling companions up beside a strong candidate', () => {
  const graph = CompanionGraph.fromDocuments([doc('book-table', ['q1', 'q2', 'q3', 'q4']), doc('send-sms', ['q1', 'q2', 'q3']), doc('pay-deposit', ['q4'])]);

  it('ranks a companion the search ranked low right below its source, scaled by its share', () => {
    const out = withCompanions(ranked('book-table', 'weather', 'maps', 'news', 'sports', 'send-sms'), byRanking, graph, undefined, anyone);
    // send-sms shares 3 of 4 of book-table's requests: 1 × (1 - (1 - 0.75)) = 0.75, above 'news' (0.7).
    expect(ids(out).slice(0, 5)).toEqual(['book-table', 'weather', 'maps', 'send-sms', 'news']);
    expect(out[3]).toMatchObject({ ranking: 0.75, companion: { of: 'book-table', share: 0.75, declared: false } });
  });

  it('never puts a companion above any of the sources, however strong the link', () => {
    const always = CompanionGraph.fromDocuments([doc('book-table', ['q1', 'q2']), doc('send-sms', ['q1', 'q2'])]);
    const out = withCompanions(ranked('book-table', 'weather', 'maps', 'news', 'send-sms'), byRanking, always, undefined, anyone);
    expect(ids(out)).toEqual(['book-table', 'weather', 'maps', 'send-sms', 'news']);
    expect(out[3]).toMatchObject({ ranking: out[2].ranking, companion: { of: 'book-table', share: 1 } });
  });

  it('moves a declared companion only when the search found it', () => {
    const declaring = CompanionGraph.fromDocuments([{ ...doc('geo/lookup'), companions: ['weather/forecast', 'mail/send'] }, doc('weather/forecast'), doc('mail/send')]);
    const out = withCompanions(ranked('geo/lookup', 'maps', 'news', 'sports', 'weather/forecast'), byRanking, declaring, undefined, anyone);
    expect(ids(out)).toEqual(['geo/lookup', 'maps', 'news', 'weather/forecast', 'sports']);
    expect(out[3].companion).toEqual({ of: 'geo/lookup', share: 1, declared: true });
    expect(ids(out)).not.toContain('mail/send');
  });

  it('adds a companion the search did not find at all, when the caller may discover it', () => {
    const withHidden = CompanionGraph.fromDocuments([doc('book-table', ['q1', 'q2', 'q3', 'q4']), doc('send-sms', ['q1', 'q2', 'q3']), doc('hidden', ['q1', 'q2', 'q3', 'q4'])]);
    const visibleOnly = (id: string) => (id === 'hidden' ? undefined : anyone(id));
    const out = withCompanions(ranked('book-table', 'weather'), byRanking, withHidden, undefined, visibleOnly);
    expect(ids(out)).toEqual(['book-table', 'weather', 'send-sms']);
    expect(out[2]).toMatchObject({ fused: 0, ranking: 0.75 });
    expect(ids(out)).not.toContain('hidden');
  });

  it('never lowers a candidate that already stands higher, and leaves a ranking without companions as it was', () => {
    const before = ranked('send-sms', 'book-table', 'weather');
    const out = withCompanions(before, byRanking, graph, undefined, anyone);
    expect(ids(out).slice(0, 2)).toEqual(['send-sms', 'book-table']);
    expect(out[0].companion).toBeUndefined();
    const plain = ranked('weather', 'maps');
    expect(withCompanions(plain, byRanking, graph, undefined, anyone)).toEqual(plain);
  });

  it('only lets the top candidates pull', () => {
    const options: CompanionOptions = { ...DEFAULT_COMPANIONS, sources: 1 };
    const out = withCompanions(ranked('weather', 'book-table', 'maps'), byRanking, graph, undefined, anyone, options);
    expect(ids(out)).toEqual(['weather', 'book-table', 'maps']);
  });
});
