import { type Binding, isBinding, parseBinding } from '@toolgate/planner';
import type { ErrorDetail, JsonSchema } from '@toolgate/sdk';

/** Keys that reach an object's prototype when assigned: never accepted in arguments, wherever they sit. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const hasOwn = (value: object, key: string) => Object.hasOwn(value, key);
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** RFC 6901 escaping of one reference token. */
export const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The reference tokens of a JSON pointer (`""` is the whole document). */
export function pointerTokens(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Every prototype-reaching key in `value`, as JSON pointers under `prefix`. */
export function forbiddenKeys(value: unknown, prefix: string, seen = new Set<object>()): ErrorDetail[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(value)) {
    const path = `${prefix}/${escapeToken(key)}`;
    if (FORBIDDEN_KEYS.has(key)) problems.push({ path, message: `the key "${key}" is not allowed (it would reach an object prototype)` });
    else problems.push(...forbiddenKeys((value as Record<string, unknown>)[key], path, seen));
  }
  return problems;
}

export interface ArgumentBinding {
  /** JSON pointer of the bound value inside the step's arguments. */
  path: string;
  ref: string;
  /** Null when `$ref` is not of the `steps.<id>.output<pointer>` form. */
  target: { step: string; pointer: string } | null;
}

/** The bindings inside a step's arguments, at any depth. */
export function collectBindings(value: unknown, path = ''): ArgumentBinding[] {
  if (isBinding(value)) return [{ path, ref: value.$ref, target: parseBinding(value) }];
  if (value === null || typeof value !== 'object') return [];
  return Object.keys(value).flatMap((key) => collectBindings((value as Record<string, unknown>)[key], `${path}/${escapeToken(key)}`));
}

/** Reads a JSON pointer with own-property reads only; `missing` is the first token that is not there. */
export function readPointer(document: unknown, pointer: string): { found: true; value: unknown } | { found: false; missing: string } {
  let current = document;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token) || Number(token) >= current.length) return { found: false, missing: token };
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object' && hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false, missing: token };
    }
  }
  return { found: true, value: current };
}

/**
 * Whether an output schema admits a value at `pointer`: false only when the schema rules it out (an
 * undeclared field where no others are allowed, a field inside a scalar, a non-index into an array).
 */
export function schemaAdmits(schema: JsonSchema, pointer: string): boolean {
  let current: unknown = schema;
  for (const token of pointerTokens(pointer)) {
    if (current === null || typeof current !== 'object' || hasOwn(current, '$ref')) return true;
    const s = current as Record<string, unknown>;
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    const properties = s.properties as Record<string, unknown> | undefined;
    if (properties && typeof properties === 'object' && hasOwn(properties, token)) {
      current = properties[token];
    } else if (types.includes('array') || s.items !== undefined || s.prefixItems !== undefined) {
      if (!ARRAY_INDEX.test(token)) return false;
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
      current = Number(token) < prefix.length ? prefix[Number(token)] : s.items;
    } else if (types.length > 0 && !types.includes('object')) {
      return false;
    } else if (s.additionalProperties === false) {
      return false;
    } else {
      current = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    }
  }
  return true;
}

/** A path inside the arguments lies at or under one of the bound positions. */
export const underBinding = (path: string, bindings: readonly ArgumentBinding[]) => bindings.some((b) => path === b.path || path.startsWith(`${b.path}/`));

/**
 * The arguments with every binding replaced by the value it points to in an earlier step's output.
 * Builds fresh containers; values are copied by structured clone so a tool never shares an object with
 * another step. Returns the problems instead when a binding does not resolve.
 */
export function resolveArguments(
  argumentsValue: Record<string, unknown>,
  outputOf: (stepId: string) => { done: true; output: unknown } | { done: false },
  prefix: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = forbiddenKeys(argumentsValue, prefix);
  if (problems.length > 0) return { ok: false, problems };
  const resolve = (value: unknown, path: string): unknown => {
    if (isBinding(value)) {
      const target = parseBinding(value as Binding);
      const source = target ? outputOf(target.step) : { done: false as const };
      if (!target || !source.done) {
        problems.push({ path: `${prefix}${path}`, message: `binding ${JSON.stringify(value.$ref)} does not name a completed step's output` });
        return undefined;
      }
      const read = readPointer(source.output, target.pointer);
      if (!read.found) problems.push({ path: `${prefix}${path}`, message: `binding ${JSON.stringify(value.$ref)} does not resolve: the output of step ${target.step} has no "${read.missing}"` });
      return read.found ? read.value : undefined;
    }
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${path}/${i}`));
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) copy[key] = resolve((value as Record<string, unknown>)[key], `${path}/${escapeToken(key)}`);
      return copy;
    }
    return value;
  };
  const resolved = resolve(argumentsValue, '') as Record<string, unknown>;
  if (problems.length > 0) return { ok: false, problems };
  const polluted = forbiddenKeys(resolved, prefix);
  if (polluted.length > 0) return { ok: false, problems: polluted };
  try {
    return { ok: true, value: structuredClone(resolved) };
  } catch (error) {
    return { ok: false, problems: [{ path: prefix || '/', message: `is not plain data: ${(error as Error).message}` }] };
  }
}
