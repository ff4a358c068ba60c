import type { BfclFunction, BfclGoldCall, BfclSchema } from './bfcl.reader';

/** A call the planner proposed: literal arguments only (a binding to an earlier step is not a value). */
export interface PredictedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type ArgumentFailureKind = 'missing_required' | 'unexpected_param' | 'wrong_type' | 'wrong_value' | 'missing_optional';

/** Why one call does not match one expected call, as BFCL's AST checker words it. */
export interface CallFailure {
  kind: 'wrong_function' | ArgumentFailureKind;
  /** The function the expected call names. */
  function: string;
  param?: string;
  /** The parameter's BFCL type (`string`, `integer`, `float`, `array`, `dict`, ...), `unknown` when the schema has none. */
  type?: string;
  expected?: unknown[];
  got?: unknown;
}

export type CallsVerdict = { ok: true } | { ok: false; kind: 'wrong_count'; expected: number; got: number } | { ok: false; kind: 'wrong_calls'; failures: CallFailure[] };

/** BFCL's string normalization: lower case, without spaces and the punctuation `,./-_*^`; single quotes as double. */
export const standardize = (text: string): string =>
  text
    .replace(/[ ,./\-_*^]/g, '')
    .toLowerCase()
    .replace(/'/g, '"');

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** BFCL writes a dict's acceptable value as `{key: [acceptable values]}`. */
const isAcceptableDict = (v: Record<string, unknown>) => Object.values(v).every(Array.isArray);

/** One value against one acceptable value: strings normalized, numbers by value (an int where a float is expected), lists element by element, dicts key by key. */
export function matchesAcceptable(value: unknown, acceptable: unknown): boolean {
  if (typeof acceptable === 'string') return typeof value === 'string' && standardize(value) === standardize(acceptable);
  if (Array.isArray(acceptable)) return Array.isArray(value) && value.length === acceptable.length && value.every((v, i) => matchesAcceptable(v, acceptable[i]));
  if (isPlainObject(acceptable)) {
    if (!isPlainObject(value)) return false;
    if (!isAcceptableDict(acceptable)) {
      const keys = Object.keys(acceptable);
      return keys.length === Object.keys(value).length && keys.every((k) => k in value && matchesAcceptable(value[k], acceptable[k]));
    }
    const options = acceptable as Record<string, unknown[]>;
    return Object.entries(value).every(([k, v]) => k in options && options[k].some((a) => matchesAcceptable(v, a))) && Object.keys(options).every((k) => k in value || options[k].includes(''));
  }
  return value === acceptable;
}

/** The AST checker's type test: an integer is a float, never the reverse; `any` and an unknown type accept anything. */
function hasType(value: unknown, schema: BfclSchema | undefined): boolean {
  switch (schema?.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'dict':
      return isPlainObject(value);
    case 'array':
    case 'tuple':
      return Array.isArray(value) && (schema.items === undefined || value.every((v) => hasType(v, schema.items)));
    default:
      return true;
  }
}

/** The first reason `call` is not `gold` under `fn`'s schema, or null when it matches (BFCL's simple function checker). */
export function checkCall(fn: BfclFunction | undefined, call: PredictedCall, gold: BfclGoldCall): CallFailure | null {
  const base = { function: gold.name };
  if (call.name !== gold.name) return { ...base, kind: 'wrong_function', got: call.name };
  const properties = fn?.parameters.properties ?? {};
  const typeOf = (param: string) => properties[param]?.type ?? 'unknown';
  for (const param of fn?.parameters.required ?? []) {
    if (!(param in call.arguments)) return { ...base, kind: 'missing_required', param, type: typeOf(param), expected: gold.arguments[param] };
  }
  for (const [param, value] of Object.entries(call.arguments)) {
    const acceptable = gold.arguments[param];
    if (!(param in properties) || acceptable === undefined) return { ...base, kind: 'unexpected_param', param, type: typeOf(param), got: value };
    if (!hasType(value, properties[param])) return { ...base, kind: 'wrong_type', param, type: typeOf(param), expected: acceptable, got: value };
    if (!acceptable.some((a) => matchesAcceptable(value, a))) return { ...base, kind: 'wrong_value', param, type: typeOf(param), expected: acceptable, got: value };
  }
  for (const [param, acceptable] of Object.entries(gold.arguments)) {
    if (!(param in call.arguments) && !acceptable.includes('')) return { ...base, kind: 'missing_optional', param, type: typeOf(param), expected: acceptable };
  }
  return null;
}

/** A pairing of every expected call with a distinct predicted call that matches it, if one exists (calls in any order). */
function perfectMatching(ok: boolean[][]): boolean {
  const used = new Set<number>();
  const assign = (g: number): boolean => {
    if (g === ok.length) return true;
    for (let p = 0; p < ok[g].length; p++) {
      if (!ok[g][p] || used.has(p)) continue;
      used.add(p);
      if (assign(g + 1)) return true;
      used.delete(p);
    }
    return false;
  };
  return assign(0);
}

/**
 * BFCL's verdict on a sample: as many calls as expected, and each expected call matched by a distinct
 * predicted one, in any order (its parallel checker; one call is the simple and multiple case). On a
 * miss, each unmatched expected call is explained against the first free predicted call of its function.
 */
export function checkCalls(functions: readonly BfclFunction[], predicted: readonly PredictedCall[], gold: readonly BfclGoldCall[]): CallsVerdict {
  if (predicted.length !== gold.length) return { ok: false, kind: 'wrong_count', expected: gold.length, got: predicted.length };
  const byName = new Map(functions.map((fn) => [fn.name, fn]));
  const verdicts = gold.map((g) => predicted.map((p) => checkCall(byName.get(g.name), p, g)));
  if (perfectMatching(verdicts.map((row) => row.map((failure) => failure === null)))) return { ok: true };
  const taken = new Set<number>();
  const failures: CallFailure[] = [];
  for (const [g, row] of verdicts.entries()) {
    const exact = row.findIndex((failure, p) => failure === null && !taken.has(p));
    const sameName = exact >= 0 ? exact : row.findIndex((failure, p) => failure?.kind !== 'wrong_function' && !taken.has(p));
    if (sameName >= 0) taken.add(sameName);
    const failure = sameName >= 0 ? row[sameName] : { kind: 'wrong_function' as const, function: gold[g].name, got: predicted.filter((_, p) => !taken.has(p)).map((p) => p.name) };
    if (failure) failures.push(failure);
  }
  return { ok: false, kind: 'wrong_calls', failures };
}
