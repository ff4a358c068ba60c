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
  /** Queries that led to a successful call of this tool (learned from usage), bounded and de-duplicated. */
  usageQueries: string[];
  risk: Risk;
}

/** Default bound on learned queries per tool: enough to cover phrasings, small enough to keep documents focused. */
export const DEFAULT_USAGE_QUERIES_PER_TOOL = 100;

const normalizeQuery = (q: string) => q.trim().replace(/\s+/g, ' ').toLowerCase();

/** Adds learned queries to a document: de-duplicated (case and spacing ignored), newest kept when over the bound. */
export function withUsageQueries(doc: ToolDocument, queries: readonly string[], limit = DEFAULT_USAGE_QUERIES_PER_TOOL): ToolDocument {
  const seen = new Set([...doc.exampleQueries, ...doc.usageQueries].map(normalizeQuery));
  const added: string[] = [];
  for (const query of queries) {
    const key = normalizeQuery(query);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    added.push(query.trim());
  }
  return { ...doc, usageQueries: [...doc.usageQueries, ...added].slice(-limit) };
}

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
    risk: descriptor.permissions.risk,
  };
}

/** Named text fields with their weight: the name and title say most about what a tool is for. */
export function weightedFields(doc: ToolDocument): { text: string; weight: number }[] {
  return [
    { text: `${doc.id.replace(/[/_-]/g, ' ')} ${doc.title}`, weight: 2 },
    { text: doc.description, weight: 1 },
    { text: [...doc.category, ...doc.tags].join(' '), weight: 1.5 },
    { text: doc.parameters.map((p) => `${p.name.replace(/[_-]/g, ' ')} ${p.description}`).join(' '), weight: 0.5 },
    { text: [...doc.exampleQueries, ...doc.usageQueries].join(' '), weight: 1 },
  ];
}
