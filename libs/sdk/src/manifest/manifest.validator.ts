import { ErrorCode, type ErrorDetail, ToolgateError } from '../errors/toolgate.errors';
import { checkAgainstSchema, compileSchema } from '../schema/json-schema.validator';
import type { ToolManifest } from './manifest.types';
import { checkSchemaSubset } from './schema-subset.validator';
import { NAMESPACE_PATTERN, TOOL_NAME_PATTERN } from './tool.id';

const TOOL_ID_PATTERN = `^${NAMESPACE_PATTERN.source.slice(1, -1)}/${TOOL_NAME_PATTERN.source.slice(1, -1)}$`;

/** Shape of a manifest's data fields; functions are checked by hand below. */
const MANIFEST_SHAPE = {
  type: 'object',
  required: ['name', 'title', 'description', 'category', 'tags', 'inputSchema', 'outputSchema', 'examples', 'permissions', 'limits', 'execution'],
  properties: {
    name: { type: 'string', pattern: TOOL_NAME_PATTERN.source },
    title: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: 'string', minLength: 20, maxLength: 4000 },
    category: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 16 },
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 32 },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    examples: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        required: ['query', 'arguments'],
        properties: { query: { type: 'string', minLength: 1 }, arguments: { type: 'object' }, output: {} },
        additionalProperties: false,
      },
    },
    permissions: {
      type: 'object',
      required: ['scopes', 'risk'],
      properties: {
        scopes: { type: 'array', items: { type: 'string', pattern: '^[a-z][a-z0-9_-]*(:[a-z0-9_*.-]+)*$' } },
        risk: { enum: ['read', 'write', 'destructive'] },
        requiresApproval: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    limits: {
      type: 'object',
      required: ['timeoutMs', 'maxConcurrency', 'retries', 'idempotent'],
      properties: {
        timeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
        maxConcurrency: { type: 'integer', minimum: 1, maximum: 10_000 },
        retries: { type: 'integer', minimum: 0, maximum: 10 },
        idempotent: { type: 'boolean' },
        maxOutputBytes: { type: 'integer', minimum: 1, maximum: 256 * 1024 * 1024 },
      },
      additionalProperties: false,
    },
    fallback: { type: 'string', pattern: TOOL_ID_PATTERN },
    companions: { type: 'array', items: { type: 'string', pattern: TOOL_ID_PATTERN }, maxItems: 16, uniqueItems: true },
    execution: { enum: ['server', 'client', 'remote', 'mcp'] },
  },
  additionalProperties: false,
} as const;

const FUNCTION_FIELDS = ['run', 'healthCheck'] as const;

/**
 * Bounds on each tool schema, checked before anything walks or compiles it: a schema is read on
 * every load and compiled for every call, so an oversized one would stall the host for everyone.
 */
export const SCHEMA_BOUNDS = { maxDepth: 32, maxNodes: 5_000 } as const;

/** Where a schema passes its bounds (iterative, so depth itself cannot overflow the stack); null when within them. */
function schemaOverBounds(schema: object): string | null {
  const stack: [unknown, number][] = [[schema, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth > SCHEMA_BOUNDS.maxDepth) return `nests deeper than ${SCHEMA_BOUNDS.maxDepth} levels`;
    const children = Array.isArray(value) ? value : Object.values(value);
    nodes += children.length;
    if (nodes > SCHEMA_BOUNDS.maxNodes) return `has more than ${SCHEMA_BOUNDS.maxNodes} keys and items`;
    for (const child of children) stack.push([child, depth + 1]);
  }
  return null;
}

const checkShape = compileSchema(MANIFEST_SHAPE);

/**
 * Checks one manifest completely and returns every problem found (empty when valid). `path` prefixes
 * each JSON pointer so a plugin's author sees e.g. `/tools/2/inputSchema/properties/x/format`.
 */
export function validateManifest(manifest: unknown, path = ''): ErrorDetail[] {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return [{ path: path || '/', message: 'must be a tool manifest object (use defineTool)' }];
  }
  const record = manifest as Record<string, unknown>;
  const data = Object.fromEntries(Object.entries(record).filter(([k]) => !(FUNCTION_FIELDS as readonly string[]).includes(k)));
  const issues = checkShape(data, path);

  for (const field of FUNCTION_FIELDS) {
    if (record[field] !== undefined && typeof record[field] !== 'function') {
      issues.push({ path: `${path}/${field}`, message: 'must be a function' });
    }
  }
  if (record.execution === 'server' && typeof record.run !== 'function') {
    issues.push({ path: `${path}/run`, message: 'is required for a tool with execution "server"' });
  }

  for (const key of ['inputSchema', 'outputSchema'] as const) {
    const schema = record[key];
    if (schema === null || typeof schema !== 'object') continue;
    const over = schemaOverBounds(schema);
    if (over) {
      issues.push({ path: `${path}/${key}`, message: `${over}; split the tool or simplify its schema` });
      continue;
    }
    const subset = checkSchemaSubset(schema, `${path}/${key}`);
    issues.push(...subset);
    if ((schema as Record<string, unknown>).type !== 'object') {
      issues.push({ path: `${path}/${key}/type`, message: 'the root of a tool schema must be type "object"' });
    }
    if (subset.length === 0) {
      try {
        compileSchema(schema);
      } catch (error) {
        issues.push({ path: `${path}/${key}`, message: `is not a valid JSON Schema: ${(error as Error).message}` });
      }
    }
  }

  if (issues.length === 0) issues.push(...validateExamples(record as unknown as ToolManifest, path));
  return issues;
}

/** Examples are documentation the planner learns from: their arguments must satisfy the input schema. */
function validateExamples(manifest: ToolManifest, path: string): ErrorDetail[] {
  return manifest.examples.flatMap((example, i) => checkAgainstSchema(manifest.inputSchema, example.arguments, `${path}/examples/${i}/arguments`));
}

/** Throws `PLUGIN_INVALID` naming every offending field. */
export function assertValidManifest(manifest: unknown, path = ''): asserts manifest is ToolManifest {
  const issues = validateManifest(manifest, path);
  if (issues.length > 0) {
    const name = (manifest as { name?: unknown } | null)?.name;
    throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `tool manifest${typeof name === 'string' ? ` "${name}"` : ''} is invalid`, issues);
  }
}
