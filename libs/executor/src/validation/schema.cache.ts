import { Injectable } from '@nestjs/common';
import type { ErrorDetail, JsonSchema } from '@toolgate/sdk';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type SchemaSide = 'input' | 'output';

/** Field-level problems as JSON pointers under `prefix` (an unknown field names itself in the path). */
export function ajvDetails(errors: ErrorObject[] | null | undefined, prefix: string): ErrorDetail[] {
  return (errors ?? []).map((e) => {
    const unknown = e.keyword === 'additionalProperties' ? `/${(e.params as { additionalProperty: string }).additionalProperty}` : '';
    return { path: `${prefix}${e.instancePath}${unknown}`, message: e.keyword === 'additionalProperties' ? 'is not a known field' : (e.message ?? 'is invalid') };
  });
}

/**
 * Compiled input and output validators, one per `tool@version` and side: a version's schemas never
 * change (its descriptor hash is pinned), so each is compiled once. Validation never coerces, fills
 * defaults or removes fields: what is checked is exactly what the tool receives.
 */
@Injectable()
export class SchemaCache {
  // addUsedSchema off: two tools may reuse one `$id` without colliding in the registry.
  private readonly ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, addUsedSchema: false }));
  private readonly compiled = new Map<string, ValidateFunction>();

  validator(toolRef: string, side: SchemaSide, schema: JsonSchema): ValidateFunction {
    const key = `${toolRef}#${side}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** How many validators were compiled (each `tool@version` side counts once). */
  get size(): number {
    return this.compiled.size;
  }

  check(toolRef: string, side: SchemaSide, schema: JsonSchema, value: unknown, prefix: string): ErrorDetail[] {
    const validate = this.validator(toolRef, side, schema);
    return validate(value) ? [] : ajvDetails(validate.errors, prefix);
  }
}
