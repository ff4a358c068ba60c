import type { JsonSchema } from '@toolgate/sdk';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// The same dialect and options as the sdk's manifest validator, so what passes here passes at execution.
// `addUsedSchema: false` keeps tools' `$id`s from colliding in this long-lived instance.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, addUsedSchema: false });
addFormats(ajv);

// Filling runs once per candidate tool per task: compiling a schema costs far more than checking with it.
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Top-level argument names whose values the schema refuses (a missing required field is not one). */
export function refusedArguments(inputSchema: JsonSchema, args: Record<string, unknown>): string[] {
  let validate = compiled.get(inputSchema);
  if (!validate) {
    validate = ajv.compile(inputSchema);
    compiled.set(inputSchema, validate);
  }
  if (validate(args)) return [];
  const names = new Set<string>();
  for (const error of validate.errors ?? []) {
    const name = error.instancePath.split('/')[1] ?? (error.keyword === 'additionalProperties' ? (error.params as { additionalProperty: string }).additionalProperty : undefined);
    if (name) names.add(decodeURIComponent(name.replaceAll('~1', '/').replaceAll('~0', '~')));
  }
  return [...names];
}
