import type { JsonSchema, Risk, ToolDescriptor } from '@toolgate/sdk';

/** What the index knows about one tool: the text retrieval matches on, plus filterable fields. */
export interface ToolDocument {
  id: string;
  version: string;
  name: string;
  title: string;
  description: string;
  category: string[];
  tags: string[];
  parameters: { name: string; description: string }[];
  exampleQueries: string[];
  /** Platform-wide usage queries (operator-shipped example files): every tenant's searches match them. De-duplicated; the catalog bounds how many it keeps. */
  usageQueries: string[];
  /**
   * Queries that led to a successful call of this tool in one tenant's runs, by tenant: only that
   * tenant's searches match them (as if they were part of the document), no other tenant's ranking
   * or explanation ever sees them. De-duplicated against the shared text.
   */
  learned?: Record<string, string[]>;
  /** Tools this one declares it is used with (ids): retrieval ranks them beside it when a search finds both. */
  companions?: string[];
  risk: Risk;
}

const normalizeQuery = (q: string) => q.trim().replace(/\s+/g, ' ').toLowerCase();

/** `queries` not in `seen` (case and spacing ignored), each once, trimmed; adds them to `seen`. */
function fresh(queries: readonly string[], seen: Set<string>): string[] {
  const added: string[] = [];
  for (const query of queries) {
    const key = normalizeQuery(query);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    added.push(query.trim());
  }
  return added;
}

/**
 * Adds platform-wide usage queries to a document, de-duplicated (case and spacing ignored). Every one
 * counts: a tool's nearest past queries are the strongest evidence retrieval has, so there is no
 * per-tool cap here (the catalog bounds each scope's examples as a whole).
 */
export function withUsageQueries(doc: ToolDocument, queries: readonly string[]): ToolDocument {
  const added = fresh(queries, new Set([...doc.exampleQueries, ...doc.usageQueries].map(normalizeQuery)));
  return { ...doc, usageQueries: [...doc.usageQueries, ...added] };
}

/** Adds what each tenant's runs taught (tenant -> queries, oldest first): de-duplicated per tenant and against the shared text. */
export function withLearnedQueries(doc: ToolDocument, byTenant: ReadonlyMap<string, readonly string[]>): ToolDocument {
  const shared = [...doc.exampleQueries, ...doc.usageQueries].map(normalizeQuery);
  const learned: Record<string, string[]> = { ...doc.learned };
  for (const [tenant, queries] of byTenant) {
    const own = learned[tenant] ?? [];
    const added = fresh(queries, new Set([...shared, ...own.map(normalizeQuery)]));
    if (own.length + added.length > 0) learned[tenant] = [...own, ...added];
  }
  return Object.keys(learned).length === 0 ? doc : { ...doc, learned };
}

/** One tenant's learned queries of a document (none for another tenant, or without a tenant). */
export const learnedQueriesOf = (doc: ToolDocument, tenant: string | undefined): string[] => (tenant === undefined ? [] : (doc.learned?.[tenant] ?? []));

function parametersOf(schema: JsonSchema): { name: string; description: string }[] {
  const properties = (schema.properties ?? {}) as Record<string, { description?: unknown }>;
  return Object.entries(properties).map(([name, p]) => ({ name, description: typeof p?.description === 'string' ? p.description : '' }));
}

export function buildToolDocument(id: string, version: string, descriptor: ToolDescriptor): ToolDocument {
  return {
    id,
    version,
    name: descriptor.name,
    title: descriptor.title,
    description: descriptor.description,
    category: [...descriptor.category],
    tags: [...descriptor.tags],
    parameters: parametersOf(descriptor.inputSchema),
    exampleQueries: descriptor.examples.map((e) => e.query),
    usageQueries: [],
    ...(descriptor.companions && descriptor.companions.length > 0 ? { companions: [...descriptor.companions] } : {}),
    risk: descriptor.permissions.risk,
  };
}

/**
 * The weight of a tenant's learned queries: that of the example queries, so that for one tenant a
 * learned query counts exactly as it did when learned queries were part of the shared text.
 */
export const LEARNED_WEIGHT = 1;

/** Named text fields with their weight: the name and title say most about what a tool is for. */
export function weightedFields(doc: ToolDocument): { text: string; weight: number }[] {
  return [
    { text: `${doc.id.replace(/[/_-]/g, ' ')} ${doc.title}`, weight: 2 },
    { text: doc.description, weight: 1 },
    { text: [...doc.category, ...doc.tags].join(' '), weight: 1.5 },
    { text: doc.parameters.map((p) => `${p.name.replace(/[_-]/g, ' ')} ${p.description}`).join(' '), weight: 0.5 },
    { text: [...doc.exampleQueries, ...doc.usageQueries].join(' '), weight: LEARNED_WEIGHT },
  ];
}
