import type { ErrorDetail } from '../errors/toolgate.errors';

/**
 * The JSON Schema 2020-12 keywords a tool schema may use. The subset is what LLM function calling,
 * argument filling and ajv all handle the same way; anything else (conditionals, dynamic refs,
 * unevaluated*) is rejected at load rather than half-supported at call time.
 */
export const SUPPORTED_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$defs',
  '$ref',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'anyOf',
  'oneOf',
  'allOf',
]);

export const SUPPORTED_FORMATS: ReadonlySet<string> = new Set(['date-time', 'date', 'time', 'duration', 'email', 'uri', 'uuid', 'hostname', 'ipv4', 'ipv6', 'regex']);

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** Keywords whose value is a map of name -> subschema. */
const SCHEMA_MAPS = new Set(['properties', '$defs']);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['prefixItems', 'anyOf', 'oneOf', 'allOf']);

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Walks a schema and reports every keyword, type, format or `$ref` outside the supported subset. */
export function checkSchemaSubset(schema: unknown, path: string): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const visit = (node: unknown, at: string): void => {
    if (typeof node === 'boolean') return;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      issues.push({ path: at, message: 'must be a schema object' });
      return;
    }
    for (const [keyword, value] of Object.entries(node as Record<string, unknown>)) {
      const here = `${at}/${escapePointer(keyword)}`;
      if (!SUPPORTED_SCHEMA_KEYWORDS.has(keyword)) {
        issues.push({ path: here, message: `keyword "${keyword}" is outside the supported JSON Schema subset` });
        continue;
      }
      if (keyword === 'type') {
        const types = Array.isArray(value) ? value : [value];
        for (const t of types) {
          if (typeof t !== 'string' || !SCHEMA_TYPES.has(t)) issues.push({ path: here, message: `unknown type ${JSON.stringify(t)}` });
        }
      } else if (keyword === 'format') {
        if (typeof value !== 'string' || !SUPPORTED_FORMATS.has(value)) {
          issues.push({ path: here, message: `format ${JSON.stringify(value)} is not supported (use one of ${[...SUPPORTED_FORMATS].join(', ')})` });
        }
      } else if (keyword === '$ref') {
        if (typeof value !== 'string' || !value.startsWith('#/$defs/')) {
          issues.push({ path: here, message: 'only local references of the form "#/$defs/<name>" are supported' });
        }
      } else if (keyword === '$schema') {
        if (value !== 'https://json-schema.org/draft/2020-12/schema') {
          issues.push({ path: here, message: 'must be "https://json-schema.org/draft/2020-12/schema" when given' });
        }
      } else if (SCHEMA_MAPS.has(keyword)) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          issues.push({ path: here, message: 'must be an object of schemas' });
        } else {
          for (const [name, sub] of Object.entries(value)) visit(sub, `${here}/${escapePointer(name)}`);
        }
      } else if (SCHEMA_LISTS.has(keyword)) {
        if (!Array.isArray(value)) issues.push({ path: here, message: 'must be an array of schemas' });
        else
          value.forEach((sub, i) => {
            visit(sub, `${here}/${i}`);
          });
      } else if (keyword === 'items' || keyword === 'additionalProperties') {
        visit(value, here);
      }
    }
  };
  visit(schema, path);
  return issues;
}
