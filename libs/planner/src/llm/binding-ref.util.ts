import { parseBinding } from '../deterministic/schema.linker';

/** The step id and JSON pointer (`''`: the whole output) of a binding's `$ref`, or null when malformed. */
export const parseBindingRef = (ref: string): { step: string; pointer: string } | null => parseBinding({ $ref: ref });

/** An argument value that stands for an earlier output: an object whose only key is `$ref` (well-formed or not). */
export const isBindingLike = (value: unknown): value is { $ref: unknown } => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && '$ref' in value;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every binding inside an argument object, with the JSON pointer of the value it replaces. */
export function findBindings(value: unknown, at = ''): { path: string; ref: unknown }[] {
  if (isBindingLike(value)) return [{ path: at, ref: value.$ref }];
  if (Array.isArray(value)) return value.flatMap((item, i) => findBindings(item, `${at}/${i}`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => findBindings(item, `${at}/${escapePointer(key)}`));
  return [];
}
