import type { ToolDocument } from '../documents/tool.document';
import type { RankedCandidate } from './coverage.merger';

export interface CompanionOptions {
  /** Candidates at the top of the ranking that may pull in their companions. */
  sources: number;
  /** Requests that led to both tools, at least: one shared request is an anecdote. */
  minTogether: number;
  /** Share of the source's requests that also used the companion, at least. */
  minShare: number;
  /** A request that led to more tools than this says little about any pair of them (a catch-all example). */
  maxToolsPerRequest: number;
}

/**
 * Fitted on development data only (UltraTool's non-test requests, with and without their usage; see
 * bench/retrieval/README.md, "Companions"): three sources, and a companion never above any of them.
 */
export const DEFAULT_COMPANIONS: CompanionOptions = { sources: 3, minTogether: 2, minShare: 0.2, maxToolsPerRequest: 8 };

export interface Companion {
  id: string;
  /** Share of the source's requests that also used it; 1 for a declared one. */
  share: number;
  /** Named by the source's manifest (`companions`), not learned from use. */
  declared: boolean;
}

/** The scope of platform-wide evidence (usage files, manifest examples); a tenant's own learning is under its name. */
const PLATFORM = '';

const normalized = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();

interface Evidence {
  /** Distinct requests that led to each tool. */
  requests: Map<string, number>;
  /** tool -> companion -> requests that led to both. */
  together: Map<string, Map<string, number>>;
}

/**
 * Which tools are used together: declared by a tool (its manifest's `companions`), or learned from the
 * requests that led to them, where a usage query stored for two tools (an example file's multi-tool
 * line, or a tenant's run that called both) links them. Learning is kept per scope, so a tenant's runs
 * link tools for that tenant's searches only, as its learned queries count for its searches only.
 * Rebuilt from the documents at each indexing: nothing to store of its own.
 */
export class CompanionGraph {
  private constructor(
    private readonly byScope: Map<string, Evidence>,
    private readonly declared: Map<string, string[]>,
  ) {}

  static fromDocuments(docs: readonly ToolDocument[], options: CompanionOptions = DEFAULT_COMPANIONS): CompanionGraph {
    // scope -> request -> the tools it led to
    const requests = new Map<string, Map<string, Set<string>>>();
    const note = (scope: string, query: string, toolId: string) => {
      const key = normalized(query);
      if (key === '') return;
      const byRequest = requests.get(scope) ?? new Map<string, Set<string>>();
      requests.set(scope, byRequest);
      const tools = byRequest.get(key) ?? new Set<string>();
      byRequest.set(key, tools);
      tools.add(toolId);
    };
    for (const doc of docs) {
      for (const query of [...doc.exampleQueries, ...doc.usageQueries]) note(PLATFORM, query, doc.id);
      for (const [tenant, queries] of Object.entries(doc.learned ?? {})) for (const query of queries) note(tenant, query, doc.id);
    }
    const byScope = new Map<string, Evidence>();
    const known = new Set(docs.map((doc) => doc.id));
    const declared = new Map(
      docs
        .flatMap((doc) => (doc.companions ?? []).filter((id) => id !== doc.id && known.has(id)).map((id) => [doc.id, id] as const))
        .reduce((m, [a, b]) => m.set(a, [...(m.get(a) ?? []), b]), new Map<string, string[]>()),
    );
    for (const [scope, byRequest] of requests) {
      const evidence: Evidence = { requests: new Map(), together: new Map() };
      for (const tools of byRequest.values()) {
        for (const tool of tools) evidence.requests.set(tool, (evidence.requests.get(tool) ?? 0) + 1);
        if (tools.size < 2 || tools.size > options.maxToolsPerRequest) continue;
        for (const a of tools) {
          const row = evidence.together.get(a) ?? new Map<string, number>();
          evidence.together.set(a, row);
          for (const b of tools) if (a !== b) row.set(b, (row.get(b) ?? 0) + 1);
        }
      }
      if (evidence.together.size > 0) byScope.set(scope, evidence);
    }
    return new CompanionGraph(byScope, declared);
  }

  get empty(): boolean {
    return this.byScope.size === 0 && this.declared.size === 0;
  }

  /**
   * The tools used with `toolId` as one caller sees them: those it declares, and those learned from
   * platform-wide evidence and the caller's tenant's own (counted together), each with the share of
   * `toolId`'s requests that also used it; best first.
   */
  companionsOf(toolId: string, tenant: string | undefined, options: CompanionOptions = DEFAULT_COMPANIONS): Companion[] {
    const scopes = [this.byScope.get(PLATFORM), tenant === undefined || tenant === PLATFORM ? undefined : this.byScope.get(tenant)].filter((e): e is Evidence => e !== undefined);
    let requests = 0;
    const together = new Map<string, number>();
    for (const evidence of scopes) {
      requests += evidence.requests.get(toolId) ?? 0;
      for (const [id, count] of evidence.together.get(toolId) ?? []) together.set(id, (together.get(id) ?? 0) + count);
    }
    const learned = [...together]
      .filter(([, count]) => requests > 0 && count >= options.minTogether && count / requests >= options.minShare)
      .map(([id, count]) => ({ id, share: count / requests, declared: false }));
    const byId = new Map(learned.map((companion) => [companion.id, companion]));
    for (const id of this.declared.get(toolId) ?? []) byId.set(id, { id, share: 1, declared: true });
    return [...byId.values()].sort((a, b) => b.share - a.share || a.id.localeCompare(b.id));
  }
}

/**
 * Pulls the companions of the strongest candidates (the first `sources`) up to just below them: a
 * request that needs several tools often names one well and the others weakly or not at all ("find a
 * repair service" also needs the notification its runs always send). A companion stands at its source's
 * standing times its share, but never above the weakest source: the tools the search itself ranked
 * highest keep their places (measured: lifting companions above them costs recall once usage examples
 * make those places right). A declaration says the tools go together, not that this request needs
 * both, so a declared companion only moves when the search found it too; a learned one may be added,
 * through `candidateOf`, which builds its entry when the caller may discover it. `standing` is each
 * candidate's value in `ranked` (sorted by it). Untouched when no source has companions.
 */
export function withCompanions(
  ranked: readonly RankedCandidate[],
  standing: (candidate: RankedCandidate) => number | undefined,
  graph: CompanionGraph,
  tenant: string | undefined,
  candidateOf: (id: string) => RankedCandidate | undefined,
  options: CompanionOptions = DEFAULT_COMPANIONS,
): RankedCandidate[] {
  if (graph.empty || ranked.length === 0) return [...ranked];
  const entries = ranked.map((candidate, order) => ({ candidate, value: standing(candidate), order }));
  const byId = new Map(entries.map((entry) => [entry.candidate.id, entry]));
  let changed = false;
  const sources = entries.slice(0, options.sources);
  // Just below the weakest source: a companion ties with it at most and then follows it (by order).
  const ceiling = Math.min(...sources.map((source) => source.value ?? Number.POSITIVE_INFINITY));
  for (const source of sources) {
    if (source.value === undefined) continue;
    for (const { id, share, declared } of graph.companionsOf(source.candidate.id, tenant, options)) {
      const value = Math.min(source.value * share, ceiling);
      let entry = byId.get(id);
      if (!entry) {
        if (declared) continue;
        const candidate = candidateOf(id);
        if (!candidate) continue;
        entry = { candidate, value: undefined, order: entries.length };
        entries.push(entry);
        byId.set(id, entry);
      }
      if (entry.value !== undefined && entry.value >= value) continue;
      entry.value = value;
      entry.candidate = { ...entry.candidate, companion: { of: source.candidate.id, share, declared } };
      changed = true;
    }
  }
  if (!changed) return [...ranked];
  const scored = entries.filter((entry) => entry.value !== undefined).sort((a, b) => (b.value as number) - (a.value as number) || a.order - b.order);
  const unscored = entries.filter((entry) => entry.value === undefined);
  return [...scored, ...unscored].map(({ candidate, value }) => (value === undefined ? candidate : { ...candidate, ranking: value }));
}
