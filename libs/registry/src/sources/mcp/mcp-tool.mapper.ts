import { type ErrorDetail, type JsonSchema, RISK_ORDER, type Risk, TOOL_NAME_PATTERN, type ToolManifest, validateManifest } from '@toolgate/sdk';
import type { McpServerConfig } from './mcp-servers.config';

/** The part of an MCP `Tool` (tools/list) the catalog reads; everything else a server sends is ignored. */
export interface McpToolListing {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface MappedTool {
  manifest: ToolManifest;
  /** The name the server knows it by (the catalog's name may differ: see catalogName). */
  mcpName: string;
}

/**
 * What a call of a tool without an `outputSchema` returns: the MCP content blocks, kept typed (text,
 * image, audio, resource, resource_link), so a later step can bind `/content/0/text`.
 */
export const CONTENT_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    content: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          type: { type: 'string' },
          text: { type: 'string' },
          data: { type: 'string' },
          mimeType: { type: 'string' },
          uri: { type: 'string' },
          name: { type: 'string' },
          resource: { type: 'object' },
        },
        required: ['type'],
      },
    },
  },
  required: ['content'],
};

const MIN_DESCRIPTION = 20;
const MAX_DESCRIPTION = 4000;
const MAX_TITLE = 120;

/** A Toolgate tool name for an MCP one: lowercase, other characters as `_`, starting with a letter. */
export function catalogName(mcpName: string): string {
  const lowered = mcpName
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 64);
  return /^[a-z]/.test(lowered) ? lowered : `t_${lowered}`.slice(0, 64);
}

/**
 * An MCP schema in the subset the catalog accepts: servers write draft-07 (zod-to-json-schema's
 * `$schema` and `definitions`), which read the same in 2020-12 once those two are renamed.
 */
export function normalizeSchema(schema: unknown): unknown {
  const visit = (node: unknown, root: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === '$schema' && typeof value === 'string' && /draft-0[4-7]/.test(value)) continue;
      if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\/definitions\//, '#/$defs/');
      // Instance values, not schemas: a default of {"definitions": ...} stays as the server wrote it.
      else if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (key === 'definitions' && !('$defs' in (node as object))) out.$defs = mapValues(value, (v) => visit(v, false));
      else out[key] = key === 'properties' || key === '$defs' ? mapValues(value, (v) => visit(v, false)) : visit(value, false);
    }
    if (root && out.type === undefined) out.type = 'object';
    return out;
  };
  return visit(schema, true);
}

const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);

const mapValues = (value: unknown, fn: (v: unknown) => unknown) =>
  value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)])) : value;

const maxRisk = (...risks: Risk[]): Risk => risks.reduce((a, b) => (RISK_ORDER.indexOf(b) > RISK_ORDER.indexOf(a) ? b : a));

/**
 * A tool's risk from its annotations, read as the MCP spec defines their defaults (readOnlyHint
 * false, destructiveHint true): a tool that says nothing is destructive. An untrusted server's
 * read-only claim is not believed (its floor is `write`, also under an operator's `risk: read`); the
 * operator's `risk` is a floor for every server.
 */
export function riskOf(annotations: McpToolListing['annotations'], server: McpServerConfig): Risk {
  const claimed: Risk = annotations?.readOnlyHint === true ? 'read' : annotations?.destructiveHint === false ? 'write' : 'destructive';
  return maxRisk(claimed, server.trust === 'trusted' ? 'read' : 'write', server.risk ?? 'read');
}

function describe(tool: McpToolListing, title: string, server: string): string {
  const text = (tool.description ?? '').trim();
  const lead = text || title;
  const described = text.length >= MIN_DESCRIPTION ? text : `${lead}${/[.!?]$/.test(lead) ? '' : '.'} Tool "${tool.name}" of the MCP server ${server}.`;
  return described.length <= MAX_DESCRIPTION ? described : `${described.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/**
 * One listed MCP tool as a catalog manifest (execution `mcp`), or the reasons it cannot be one. The
 * manifest goes through the same validator as a plugin's, so schemas outside the tested subset, or
 * too large or deep, are refused here and never reach a planner.
 */
export function mapMcpTool(tool: McpToolListing, server: string, config: McpServerConfig, index: number): MappedTool | { issues: ErrorDetail[] } {
  const at = `/tools/${index}`;
  if (typeof tool.name !== 'string' || tool.name.length === 0) return { issues: [{ path: `${at}/name`, message: 'must be a non-empty string' }] };
  const name = catalogName(tool.name);
  if (!TOOL_NAME_PATTERN.test(name)) return { issues: [{ path: `${at}/name`, message: `"${tool.name}" cannot be a tool name` }] };
  const rawTitle = (tool.title ?? tool.annotations?.title ?? tool.name).trim() || tool.name;
  const title = rawTitle.length <= MAX_TITLE ? rawTitle : `${rawTitle.slice(0, MAX_TITLE - 1)}…`;
  const risk = riskOf(tool.annotations, config);
  const trusted = config.trust === 'trusted';
  const idempotent = trusted && (tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true);
  const openWorld = tool.annotations?.openWorldHint !== false;
  const manifest = {
    name,
    title,
    description: describe(tool, title, server),
    category: ['mcp'],
    tags: ['mcp', server, ...(openWorld ? ['open-world'] : [])],
    inputSchema: normalizeSchema(tool.inputSchema) as JsonSchema,
    outputSchema: tool.outputSchema === undefined ? CONTENT_OUTPUT_SCHEMA : (normalizeSchema(tool.outputSchema) as JsonSchema),
    examples: [],
    permissions: {
      // Server names are namespaces, whose characters a scope segment allows.
      scopes: [`mcp:${server}`],
      risk,
      ...(config.requiresApproval ? { requiresApproval: true } : {}),
    },
    limits: { timeoutMs: config.timeoutMs, maxConcurrency: config.maxConcurrency, retries: idempotent ? config.retries : 0, idempotent },
    execution: 'mcp',
  } satisfies ToolManifest;
  const issues = validateManifest(manifest, at);
  return issues.length > 0 ? { issues } : { manifest, mcpName: tool.name };
}
