/**
 * OpenAI strict mode (function `strict: true`, `json_schema.strict`) accepts only part of JSON Schema:
 * every object closed and every property listed in `required`. A tool schema is converted only when
 * the conversion is faithful; otherwise the tool goes out non-strict. Either way every returned
 * argument object is validated against the ORIGINAL schema, so nothing is ever loosened.
 */

type SchemaNode = Record<string, unknown>;

/** Validation keywords strict mode enforces as JSON Schema does. */
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** Annotations: they constrain nothing, so dropping them loosens nothing. */
const ANNOTATIONS = new Set(['$schema', '$comment', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

const acceptsNull = (node: SchemaNode): boolean => {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes('null') || (Array.isArray(node.enum) && node.enum.includes(null)) || node.const === null;
};

/**
 * The strict form of `schema`, or `null` when strict mode could not express it faithfully. Optional
 * properties become required and nullable; `dropNullOptionals` turns those nulls back into absence.
 */
export function toStrictSchema(schema: object): SchemaNode | null {
  const convert = (node: unknown, insideAnyOf: boolean): SchemaNode | null => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
    const out: SchemaNode = {};
    for (const [keyword, value] of Object.entries(node as SchemaNode)) {
      if (ANNOTATIONS.has(keyword)) continue;
      if (!STRICT_KEYWORDS.has(keyword)) return null;
      if (keyword === 'properties') {
        const required = new Set(((node as SchemaNode).required as string[] | undefined) ?? []);
        const properties: SchemaNode = {};
        for (const [name, sub] of Object.entries(value as SchemaNode)) {
          const converted = convert(sub, insideAnyOf);
          if (!converted) return null;
          if (required.has(name)) properties[name] = converted;
          // Nullable-for-optional is undone only along plain properties/items; not inside anyOf branches,
          // and not where null is already a meaningful value.
          else if (insideAnyOf || acceptsNull(converted)) return null;
          else properties[name] = { anyOf: [converted, { type: 'null' }] };
        }
        out.properties = properties;
        out.required = Object.keys(properties);
      } else if (keyword === 'required') {
        // Rewritten with `properties`; a required name without a property schema cannot be expressed.
        const declared = Object.keys(((node as SchemaNode).properties as SchemaNode | undefined) ?? {});
        if ((value as string[]).some((name) => !declared.includes(name))) return null;
      } else if (keyword === 'items') {
        const converted = convert(value, insideAnyOf);
        if (!converted) return null;
        out.items = converted;
      } else if (keyword === 'anyOf') {
        const branches = (value as unknown[]).map((branch) => convert(branch, true));
        if (branches.some((branch) => branch === null)) return null;
        out.anyOf = branches;
      } else if (keyword === 'additionalProperties') {
        if (value !== false) return null;
        out.additionalProperties = false;
      } else {
        out[keyword] = value;
      }
    }
    const isObject = out.type === 'object' || out.properties !== undefined;
    if (isObject) {
      if (out.additionalProperties !== false) return null;
      out.properties ??= {};
      out.required ??= [];
    }
    return out;
  };
  return convert(schema, false);
}

/** Removes the nulls strict mode made the model send for optional properties of `schema`. */
export function dropNullOptionals(schema: object, value: unknown): unknown {
  const node = schema as SchemaNode;
  if (Array.isArray(value)) return node.items && typeof node.items === 'object' ? value.map((item) => dropNullOptionals(node.items as object, item)) : value;
  if (value === null || typeof value !== 'object' || !node.properties) return value;
  const required = new Set((node.required as string[] | undefined) ?? []);
  const properties = node.properties as Record<string, object>;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === null && !required.has(name) && name in properties) continue;
    out[name] = name in properties ? dropNullOptionals(properties[name], field) : field;
  }
  return out;
}

/** Size bounds above this are validation-only: no model counts to them, and a grammar built from them explodes. */
const MODEL_SIZE_BOUND = 64;
const SIZE_BOUNDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);

/**
 * The schema as a model should see it: size bounds a model cannot use (`maxLength: 1000000`) are
 * left out, since servers that constrain decoding turn them into grammars (llama.cpp's crashed on
 * one). Replies are still validated against the original schema.
 */
export function forModel(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forModel);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: SchemaNode = {};
  for (const [keyword, value] of Object.entries(schema as SchemaNode)) {
    if (SIZE_BOUNDS.has(keyword) && typeof value === 'number' && value > MODEL_SIZE_BOUND) continue;
    // `properties`, `$defs` and the like map names to schemas; `enum`, `const`, `required` and `examples` hold data.
    out[keyword] = keyword === 'enum' || keyword === 'const' || keyword === 'required' || keyword === 'examples' || keyword === 'default' ? value : forModel(value);
  }
  return out;
}
