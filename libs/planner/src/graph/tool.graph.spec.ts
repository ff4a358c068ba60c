import { ToolGraph, toolKey } from './tool.graph';

describe('ToolGraph', () => {
  it('keeps declared edges and ignores versions and self loops', () => {
    const graph = ToolGraph.fromEdges([
      { source: 'flight/search@1.0.0', target: 'flight/book' },
      { source: 'a', target: 'a' },
    ]);
    expect(graph.hasEdge('flight/search', 'flight/book@2.0.0')).toBe(true);
    expect(graph.hasEdge('flight/book', 'flight/search')).toBe(false);
    expect(graph.hasEdge('a', 'a')).toBe(false);
    expect(graph.weight('flight/search', 'flight/book')).toBe(0.5);
  });

  it('learns edges and their strength from observed runs', () => {
    const graph = new ToolGraph();
    graph.observe(['search', 'book']);
    graph.observe([{ tool: 'search@1' }, { tool: 'book@1' }, { tool: 'sms' }]);
    graph.observe(['book']);
    expect(graph.runs).toBe(3);
    expect(graph.edge('search', 'book')).toEqual({ declared: false, observed: 2 });
    // book ran in 3 runs, 2 of them right after search.
    expect(graph.weight('search', 'book')).toBeCloseTo(0.5 * (2 / 3));
    expect(graph.predecessors('book', 0.6, 2)).toEqual([{ tool: 'search', confidence: 2 / 3, support: 2 }]);
    expect(graph.predecessors('book', 0.7, 2)).toEqual([]);
    expect(graph.toJSON()).toEqual([
      { source: 'book', target: 'sms', declared: false, observed: 1 },
      { source: 'search', target: 'book', declared: false, observed: 2 },
    ]);
  });

  it('lists declared neighbours on either side, and knows which tools were ever seen in a run', () => {
    const graph = ToolGraph.fromEdges([
      { source: 'flight/search', target: 'flight/book' },
      { source: 'flight/book', target: 'notify/sms' },
    ]);
    graph.observe(['hotel/search', 'flight/book']);
    expect(graph.declaredNeighbours('flight/book@1.0.0', 'before')).toEqual(['flight/search']);
    expect(graph.declaredNeighbours('flight/book', 'after')).toEqual(['notify/sms']);
    expect(graph.seen('flight/book')).toBe(true);
    expect(graph.seen('flight/search')).toBe(false);
  });

  it('knows the tools that usually run right after one', () => {
    const graph = new ToolGraph();
    graph.observe(['repair/request', 'repair/status']);
    graph.observe(['repair/request', 'repair/status', 'sms']);
    graph.observe(['repair/request', 'sms']);
    expect(graph.successors('repair/request', 0.5, 2)).toEqual([{ tool: 'repair/status', confidence: 2 / 3, support: 2 }]);
    expect(graph.successors('repair/request', 0.7, 2)).toEqual([]);
    expect(graph.successors('unknown', 0.1)).toEqual([]);
  });

  it("keeps what each tenant's runs taught to that tenant, over the shared edges", () => {
    const graph = ToolGraph.fromEdges([{ source: 'flight/search', target: 'flight/book' }]);
    graph.observe(['repair/request', 'repair/status']);
    for (let i = 0; i < 5; i++) graph.observe(['files/delete', 'mail/send'], 'globex');
    graph.observe(['flight/search', 'flight/book'], 'acme');
    const acme = graph.forTenant('acme');
    const globex = graph.forTenant('globex');
    // globex's runs shape only globex's graph.
    expect(globex.predecessors('mail/send', 0.5)).toEqual([{ tool: 'files/delete', confidence: 1, support: 5 }]);
    expect(acme.predecessors('mail/send', 0.1, 1)).toEqual([]);
    expect(acme.hasEdge('files/delete', 'mail/send')).toBe(false);
    expect(graph.hasEdge('files/delete', 'mail/send')).toBe(false);
    // Each tenant sees the declared and platform-wide edges plus its own observations.
    expect(acme.edge('flight/search', 'flight/book')).toEqual({ declared: true, observed: 1 });
    expect(acme.weight('flight/search', 'flight/book')).toBe(1);
    expect(globex.weight('flight/search', 'flight/book')).toBe(0.5);
    expect(acme.successors('repair/request', 0.5, 1)).toEqual([{ tool: 'repair/status', confidence: 1, support: 1 }]);
    expect([acme.runs, globex.runs, graph.runs]).toEqual([2, 6, 1]);
    expect(acme.toJSON().map((e) => `${e.source}>${e.target}`)).toEqual(['flight/search>flight/book', 'repair/request>repair/status']);
    expect(graph.forTenant('initech').toJSON()).toEqual(graph.toJSON());
  });

  it('strips only a trailing version from ids', () => {
    expect(toolKey('units/convert@1.2.0')).toBe('units/convert');
    expect(toolKey('units/convert')).toBe('units/convert');
  });
});
