import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorDetail } from '../errors/toolgate.errors';

/** Checks a value against one compiled schema: every problem as a JSON pointer under `prefix`; empty when valid. */
export type SchemaCheck = (value: unknown, prefix?: string) => ErrorDetail[];

/**
 * The one JSON Schema 2020-12 configuration: manifests are checked with it at load, the planner fills
 * arguments with it and the executor checks arguments and outputs with it, so a schema accepted at load
 * compiles identically everywhere and no two places disagree on a value. Never coerces, fills defaults
 * or removes fields: what is checked is exactly what the tool receives.
 * `addUsedSchema: false` keeps tools' `$id`s from colliding in this long-lived instance.
 */
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, addUsedSchema: false }));

// Compiling costs far more than checking: each schema is compiled once, found again by identity or,
// for an equal copy (e.g. a descriptor read again), by its JSON text. Key order is kept in the text
// because it decides the order of the reported problems.
const byIdentity = new WeakMap<object, SchemaCheck>();
const byText = new Map<string, SchemaCheck>();

const detailsOf = (errors: ErrorObject[] | null | undefined, prefix: string): ErrorDetail[] =>
  (errors ?? []).map((e) => {
    // An unknown field names itself in the path.
    const unknown = e.keyword === 'additionalProperties' ? `/${(e.params as { additionalProperty: string }).additionalProperty}` : '';
    return { path: `${prefix}${e.instancePath}${unknown}`, message: e.keyword === 'additionalProperties' ? 'is not a known field' : (e.message ?? 'is invalid') };
  });

/** The compiled check of `schema`; throws when it is not a valid schema (under strict mode). */
export function compileSchema(schema: object): SchemaCheck {
  const known = byIdentity.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let check = byText.get(text);
  if (!check) {
    const validate = ajv.compile(schema);
    check = (value, prefix = '') => (validate(value) ? [] : detailsOf(validate.errors, prefix));
    byText.set(text, check);
  }
  byIdentity.set(schema, check);
  return check;
}

/** Field-level problems of `value` against a schema (a tool's input or output), as JSON pointers under `path`. */
export function checkAgainstSchema(schema: object, value: unknown, path = ''): ErrorDetail[] {
  return compileSchema(schema)(value, path);
}
