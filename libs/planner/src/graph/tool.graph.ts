/** One directed relation "`target` may follow (use the result of) `source`". */
export interface ToolEdge {
  source: string;
  target: string;
}

/** How strongly the graph knows an edge: declared by a plugin or dataset, and how often it was seen in runs. */
export interface EdgeEvidence {
  declared: boolean;
  /** Times `target` directly followed `source` in observed successful runs. */
  observed: number;
}

/** A tool that usually runs right before (or after) another one in observed runs. */
export interface Predecessor {
  tool: string;
  /** Share of the observed runs of the other tool in which this one came right before (after) it. */
  confidence: number;
  support: number;
}

/** Tool ids without their `@version`: relations hold between tools, not versions. */
export const toolKey = (ref: string): string => {
  const at = ref.lastIndexOf('@');
  return at > 0 ? ref.slice(0, at) : ref;
};

/** Tenants whose learned graphs are kept; past it, the one idle longest is forgotten (it learns again from its next runs). */
export const MAX_TENANT_GRAPHS = 1_000;

/**
 * Relations between tools: edges declared by plugins or data (e.g. TaskBench `graph_desc.json`) and
 * edges learned from successful runs (`observe`). Used to order steps, to link them, and to add a step
 * that observed runs almost always needed first (a search before a change).
 *
 * What a tenant's runs teach (`observe(run, tenant)`) goes to that tenant's own graph (`forTenant`):
 * it sees this graph's declared and platform-wide edges plus its own observations, and no other
 * tenant's; nothing a tenant teaches ever reaches this graph or another tenant's.
 */
export class ToolGraph {
  private readonly edges = new Map<string, Map<string, EdgeEvidence>>();
  /** Observed runs that used each tool. */
  private readonly runsWith = new Map<string, number>();
  private observedRuns = 0;
  /** Each tenant's graph, least recently used first. */
  private readonly tenants = new Map<string, ToolGraph>();

  /** `base`: the platform-wide graph a tenant's graph adds its own observations to. */
  constructor(private readonly base: ToolGraph | null = null) {}

  /** The graph a tenant's plans use: the platform-wide one plus what that tenant's runs taught. */
  forTenant(tenant: string): ToolGraph {
    if (this.base) return this.base.forTenant(tenant);
    const graph = this.tenants.get(tenant) ?? new ToolGraph(this);
    this.tenants.delete(tenant);
    this.tenants.set(tenant, graph);
    if (this.tenants.size > MAX_TENANT_GRAPHS) this.tenants.delete(this.tenants.keys().next().value as string);
    return graph;
  }

  /** Sources with an edge to `target`, here or in the base. */
  private sourcesOf(target: string): Set<string> {
    const found = new Set(this.base?.sourcesOf(target));
    for (const [source, targets] of this.edges) if (targets.has(target)) found.add(source);
    return found;
  }

  /** Targets of edges from `source`, here or in the base. */
  private targetsOf(source: string): Set<string> {
    return new Set([...(this.base?.targetsOf(source) ?? []), ...(this.edges.get(source)?.keys() ?? [])]);
  }

  private runsOf(tool: string): number {
    return (this.base?.runsOf(tool) ?? 0) + (this.runsWith.get(tool) ?? 0);
  }

  static fromEdges(edges: Iterable<ToolEdge>): ToolGraph {
    const graph = new ToolGraph();
    for (const edge of edges) graph.declare(edge.source, edge.target);
    return graph;
  }

  private evidence(source: string, target: string): EdgeEvidence {
    const from = this.edges.get(source) ?? new Map<string, EdgeEvidence>();
    this.edges.set(source, from);
    const found = from.get(target) ?? { declared: false, observed: 0 };
    from.set(target, found);
    return found;
  }

  declare(source: string, target: string): void {
    const [s, t] = [toolKey(source), toolKey(target)];
    if (s === t) return;
    this.evidence(s, t).declared = true;
  }

  /**
   * Makes `edges` the declared ones (the catalog's companions changed): edges declared before and not now keep
   * only what runs showed of them.
   */
  redeclare(edges: Iterable<ToolEdge>): void {
    for (const targets of this.edges.values())
      for (const [target, evidence] of targets) {
        evidence.declared = false;
        if (evidence.observed === 0) targets.delete(target);
      }
    for (const [source, targets] of [...this.edges]) if (targets.size === 0) this.edges.delete(source);
    for (const edge of edges) this.declare(edge.source, edge.target);
  }

  /**
   * Learns from one successful run: each tool and the one that ran right after it. Accepts tool ids or
   * run steps (`{tool}`), in execution order. With `tenant`, only that tenant's graph learns it.
   */
  observe(run: readonly (string | { tool: string })[], tenant?: string): void {
    if (tenant !== undefined) {
      this.forTenant(tenant).observe(run);
      return;
    }
    const tools = run.map((step) => toolKey(typeof step === 'string' ? step : step.tool));
    if (tools.length === 0) return;
    this.observedRuns++;
    for (const tool of new Set(tools)) this.runsWith.set(tool, (this.runsWith.get(tool) ?? 0) + 1);
    for (let i = 1; i < tools.length; i++) if (tools[i - 1] !== tools[i]) this.evidence(tools[i - 1], tools[i]).observed++;
  }

  get runs(): number {
    return (this.base?.runs ?? 0) + this.observedRuns;
  }

  edge(source: string, target: string): EdgeEvidence | undefined {
    const shared = this.base?.edge(source, target);
    const own = this.edges.get(toolKey(source))?.get(toolKey(target));
    if (!shared || !own) return shared ? { ...shared } : own && { ...own };
    return { declared: shared.declared || own.declared, observed: shared.observed + own.observed };
  }

  hasEdge(source: string, target: string): boolean {
    return this.edge(source, target) !== undefined;
  }

  /**
   * Strength of `source -> target` in [0, 1]: a declared edge counts 0.5, observed runs add up to 0.5
   * by the share of the target's runs that had the source right before it.
   */
  weight(source: string, target: string): number {
    const edge = this.edge(source, target);
    if (!edge) return 0;
    const runs = this.runsOf(toolKey(target));
    return (edge.declared ? 0.5 : 0) + (runs > 0 ? 0.5 * Math.min(1, edge.observed / runs) : 0);
  }

  /** Tools observed right before `tool` in at least `minConfidence` of its runs (and `minSupport` runs), strongest first. */
  predecessors(tool: string, minConfidence: number, minSupport = 3): Predecessor[] {
    const target = toolKey(tool);
    const runs = this.runsOf(target);
    if (runs === 0) return [];
    const found: Predecessor[] = [];
    for (const source of this.sourcesOf(target)) {
      const edge = this.edge(source, target);
      if (!edge || edge.observed < minSupport) continue;
      const confidence = edge.observed / runs;
      if (confidence >= minConfidence) found.push({ tool: source, confidence, support: edge.observed });
    }
    return found.sort((a, b) => b.confidence - a.confidence || a.tool.localeCompare(b.tool));
  }

  /** Tools observed right after `tool` in at least `minConfidence` of its runs (and `minSupport` runs), strongest first. */
  successors(tool: string, minConfidence: number, minSupport = 3): Predecessor[] {
    const source = toolKey(tool);
    const runs = this.runsOf(source);
    if (runs === 0) return [];
    const found: Predecessor[] = [];
    for (const target of this.targetsOf(source)) {
      const edge = this.edge(source, target);
      if (!edge || edge.observed < minSupport) continue;
      const confidence = edge.observed / runs;
      if (confidence >= minConfidence) found.push({ tool: target, confidence, support: edge.observed });
    }
    return found.sort((a, b) => b.confidence - a.confidence || a.tool.localeCompare(b.tool));
  }

  /** Whether runs of the tool were seen at all: with none, what the graph knows of it is only what was declared. */
  seen(tool: string): boolean {
    return this.runsOf(toolKey(tool)) > 0;
  }

  /** Tools declared (by a plugin or dataset) right before (`before`) or after `tool`, whatever runs showed. */
  declaredNeighbours(tool: string, side: 'before' | 'after'): string[] {
    const key = toolKey(tool);
    const others = side === 'before' ? this.sourcesOf(key) : this.targetsOf(key);
    return [...others].filter((other) => (side === 'before' ? this.edge(other, key) : this.edge(key, other))?.declared).sort();
  }

  private edgeSources(): string[] {
    return [...this.edges.keys()];
  }

  /** Every edge, sorted, with its evidence: what persistence will store. */
  toJSON(): (ToolEdge & EdgeEvidence)[] {
    const all: (ToolEdge & EdgeEvidence)[] = [];
    const sources = new Set([...(this.base?.edgeSources() ?? []), ...this.edges.keys()]);
    for (const source of sources) for (const target of this.targetsOf(source)) all.push({ source, target, ...(this.edge(source, target) as EdgeEvidence) });
    return all.sort((a, b) => a.source.localeCompare(b.source) || a.target.localeCompare(b.target));
  }
}
