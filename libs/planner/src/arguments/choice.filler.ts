// Fields that pick among fixed values: an enum, a list of enum values, a flag.
import type { JsonSchema } from '@toolgate/sdk';
import { matchEnum } from './enum.matcher';
import type { Filling } from './filling.state';
import { flagValues, type SchemaField } from './schema.fields';
import { contentWords, overlaps, stem, wordMatches } from './text-span.util';

const NEGATIONS = new Set(['no', 'not', 'without', "don't", 'dont', 'never', 'exclude', 'excluding', 'skip', 'omit', "doesn't", "isn't", 'less', 'non']);

export function fillEnums(state: Filling, field: SchemaField): void {
  const list = field.kind === 'enum-list';
  const values = (list ? ((field.schema.items as JsonSchema).enum as unknown[]) : (field.schema.enum as unknown[])) ?? [];
  // Quoted text is data, except a quote that is one of the values itself ("with the status 'concluded'").
  const named = new Set(values.map((v) => String(v).toLowerCase()));
  const quotesAValue = (span: { text: string }) => named.has(span.text.replace(/^['"“‘]|['"”’]$/g, '').toLowerCase());
  // A date written as one of the values ("on Saturday" for a day-of-week enum) is that value.
  const blocked = [...state.opaque.filter((span) => !quotesAValue(span)), ...state.dates.filter((span) => !quotesAValue(span)), ...state.used];
  let matches = matchEnum(state.text, values, blocked);
  // "AA" among AA, Aa and aa: values told apart by case only are read as written.
  const exact = matches.filter((m) => String(m.value) === m.text);
  if (exact.length > 0 && exact.length < matches.length && matches.every((m) => exact.some((e) => overlaps(e, m)))) matches = exact;
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
    // The words read as the list's values are its own: no other field takes "point" from "point and rebound stats".
    state.used.push(...matches);
    return;
  }
  state.single(
    field,
    matches.map((m) => ({ value: m.value, span: m })),
  );
  // Every mention of the chosen value is this field's ("the Real GDP … with the adjustment set to 'Real'"): no other field reads it.
  if (field.name in state.fill.arguments) state.used.push(...matches.filter((m) => m.value === state.fill.arguments[field.name]));
}

/** Words of a flag's name that only say it is a flag or how it is asked for ("include_history", "want_year", "closed_status"). */
const FLAG_WORDS = new Set([
  'is',
  'consider',
  'use',
  'should',
  'enable',
  'enabled',
  'with',
  'include',
  'show',
  'get',
  'want',
  'return',
  'has',
  'have',
  'allow',
  'need',
  'status',
  'flag',
  'mode',
  'option',
  'do',
]);
/** How far apart (in words) the words a flag names may be written: "with toll roads avoided" for avoid_tolls. */
const FLAG_WINDOW = 5;

/** A flag whose own words the text writes near one another is on, unless a negation comes right before them. */
export function fillBoolean(state: Filling, field: SchemaField): void {
  const named = field.nameWords.filter((w) => !FLAG_WORDS.has(w) && !/^\d+$/.test(w));
  const free = state.words.filter((w) => !state.opaque.some((o) => overlaps(o, w)));
  const hitsOf = (words: string[]) => words.map((n) => free.flatMap((w, i) => (wordMatches(n, stem(w.word)) ? [i] : [])));
  let significant = named;
  let hits = hitsOf(named);
  // "If true, additional data like PM2.5 and ozone levels will be retrieved": the text that asks for what the
  // description says the flag adds ("including additional data like PM2.5, ozone levels") turns it on.
  if (named.length === 0 || hits.some((h) => h.length === 0)) {
    const adds = /\bif (?:set to )?true,?\s+(.+?)(?:\s+(?:will|is|are|would)\b|[.;]|$)/i.exec(String(field.schema.description ?? ''))?.[1];
    const words = [...new Set(contentWords(adds))].slice(0, 4);
    if (words.length < 2) return;
    [significant, hits] = [words, hitsOf(words)];
  }
  if (significant.length === 0 || hits.some((h) => h.length === 0)) return;
  // The first place where every word is written within the window, in any order.
  let best: [number, number] | undefined;
  for (const i of hits[0]) {
    const near = hits.map((h) => h.reduce((a, b) => (Math.abs(b - i) < Math.abs(a - i) ? b : a)));
    const [from, to] = [Math.min(...near), Math.max(...near)];
    if (to - from < FLAG_WINDOW && (!best || from < best[0])) best = [from, to];
  }
  if (!best) return;
  const span = { start: free[best[0]].start, end: free[best[1]].end, text: '' };
  span.text = state.text.slice(span.start, span.end);
  const before = free.slice(Math.max(0, best[0] - 3), best[0]).map((w) => w.word);
  // "has few artistic interests" says no; "a few" says some.
  const few = before.some((w, i) => (w === 'few' || w === 'little') && before[i - 1] !== 'a');
  const on = !before.some((w) => NEGATIONS.has(w)) && !few;
  // A flag written as an enum of words ("True" / "False" / "dontcare") takes its words.
  const words = flagValues(field.schema);
  state.set(field, { value: words ? (on ? words.on : words.off) : on, span });
}
