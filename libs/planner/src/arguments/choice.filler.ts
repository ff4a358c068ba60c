// Fields that pick among fixed values: an enum, a list of enum values, a flag.
import type { JsonSchema } from '@toolgate/sdk';
import { matchEnum } from './enum.matcher';
import type { Filling } from './filling.state';
import type { SchemaField } from './schema.fields';
import { overlaps, stem, wordMatches } from './text-span.util';

const NEGATIONS = new Set(['no', 'not', 'without', "don't", 'dont', 'never', 'exclude', 'excluding', 'skip', 'omit', "doesn't", "isn't"]);

export function fillEnums(state: Filling, field: SchemaField): void {
  const list = field.kind === 'enum-list';
  const values = (list ? ((field.schema.items as JsonSchema).enum as unknown[]) : (field.schema.enum as unknown[])) ?? [];
  const blocked = [...state.opaque, ...state.dates, ...state.used];
  let matches = matchEnum(state.text, values, blocked);
  if (list && matches.length === 0) {
    // "how many weeks" names the unit "weeks"; "in hours" too; the singular ("a day") as well.
    const singulars = values.filter((v): v is string => typeof v === 'string' && v.endsWith('s')).map((v) => v.slice(0, -1));
    matches = matchEnum(state.text, singulars, blocked).map((m) => ({ ...m, value: `${m.value}s` }));
  }
  if (matches.length === 0) return;
  if (list) {
    const chosen = [...new Set(matches.map((m) => m.value))];
    state.fill.arguments[field.name] = chosen;
    state.fill.evidence[field.name] = matches.map((m) => m.text).join(', ');
    return;
  }
  state.single(
    field,
    matches.map((m) => ({ value: m.value, span: m })),
  );
}

export function fillBoolean(state: Filling, field: SchemaField): void {
  const significant = field.nameWords.filter((w) => !['is', 'use', 'should', 'enable', 'with'].includes(w));
  if (significant.length === 0) return;
  const free = state.words.filter((w) => !state.opaque.some((o) => overlaps(o, w)));
  const first = free.findIndex((_, i) => significant.every((n, k) => free[i + k] && wordMatches(n, stem(free[i + k].word))));
  if (first < 0) return;
  const span = { start: free[first].start, end: free[first + significant.length - 1].end, text: '' };
  span.text = state.text.slice(span.start, span.end);
  const before = free.slice(Math.max(0, first - 3), first).map((w) => w.word);
  state.set(field, { value: !before.some((w) => NEGATIONS.has(w)), span });
}
