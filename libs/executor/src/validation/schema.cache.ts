import { Injectable } from '@nestjs/common';
import { compileSchema, type ErrorDetail, type JsonSchema, type SchemaCheck } from '@toolgate/sdk';

export type SchemaSide = 'input' | 'output';

/**
 * Compiled input and output checks (the sdk's one JSON Schema configuration), one per `tool@version`
 * and side: a version's schemas never change (its descriptor hash is pinned), so each is compiled once.
 */
@Injectable()
export class SchemaCache {
  private readonly compiled = new Map<string, SchemaCheck>();

  /** How many checks were compiled (each `tool@version` side counts once). */
  get size(): number {
    return this.compiled.size;
  }

  check(toolRef: string, side: SchemaSide, schema: JsonSchema, value: unknown, prefix: string): ErrorDetail[] {
    const key = `${toolRef}#${side}`;
    let check = this.compiled.get(key);
    if (!check) {
      check = compileSchema(schema);
      this.compiled.set(key, check);
    }
    return check(value, prefix);
  }
}
