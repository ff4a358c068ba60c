import type { Span } from './argument-fill.types';
import { escapeRegExp, overlaps } from './text-span.util';

export interface EnumMention extends Span {
  value: string | number;
}

/** Everyday words for common enum values; a value is always matched by its own spelling too. */
const SYNONYMS: Record<string, string[]> = {
  desc: ['descending', 'highest first', 'largest first', 'biggest first', 'newest first', 'decreasing', 'high to low'],
  asc: ['ascending', 'lowest first', 'smallest first', 'oldest first', 'increasing', 'low to high'],
  avg: ['average', 'mean'],
  sum: ['total', 'add up', 'sum up'],
  count: ['how many', 'number of'],
  count_distinct: ['distinct', 'unique'],
  min: ['minimum', 'lowest', 'smallest'],
  max: ['maximum', 'highest', 'largest', 'biggest'],
  bar: ['bar chart', 'bar graph', 'column chart', 'histogram'],
  line: ['line chart', 'line graph', 'trend'],
  overwrite: ['replace', 'replacing', 'overwriting', 'overwritten'],
  append: ['appending', 'add to the end', 'at the end'],
  base64: ['binary'],
  utf8: ['utf-8', 'as text', 'plain text'],
  mass: ['weight'],
  length: ['distance', 'distances'],
  data: ['file size', 'storage', 'data size'],
  temperature: ['temperatures'],
  speed: ['velocity'],
  eq: ['equals', 'equal to', 'is exactly'],
  gt: ['greater than', 'more than', 'above', 'over'],
  gte: ['at least'],
  lt: ['less than', 'below', 'under', 'fewer than'],
  lte: ['at most'],
  // What is done to a record, in everyday verbs.
  delete: ['remove', 'erase', 'get rid of'],
  add: ['create', 'insert', 'put'],
  complete: ['finish', 'mark as done', 'mark it done', 'check off'],
  update: ['modify', 'edit'],
  cancel: ['call off', 'abort'],
};

/** Enum values a text names: by value ("bar", "HEAD") or by an everyday word ("descending", "weight"). */
export function matchEnum(text: string, values: readonly unknown[], taken: Span[] = []): EnumMention[] {
  const found: EnumMention[] = [];
  for (const value of values) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const spelled = String(value);
    // An all-capitals value ("GET", "HEAD") is a term of art only in capitals; "get" is a verb.
    const exactCase = /^[A-Z]{2,}$/.test(spelled);
    const sources = [spelled, ...(SYNONYMS[spelled] ?? [])].map(escapeRegExp);
    // "high_low_temperature": its words in order, joined by spaces, hyphens or "and" ("high and low temperatures").
    const parts = spelled.split('_').filter((p) => p !== '');
    if (parts.length > 1) sources.push(`${parts.map(escapeRegExp).join('(?:\\s+(?:and|&)\\s+|[\\s-]+)')}s?`);
    // "field goal %" is written "field goal percentage"; "R&D" "R and D".
    if (/[%&]/.test(spelled))
      sources.push(
        escapeRegExp(spelled)
          .replace(/\s*%/g, '\\s*(?:%|percent(?:age)?)')
          .replace(/\s*&\s*/g, '\\s*(?:&|and)\\s*'),
      );
    // "strength and weakness" for "strengths", "weaknesses"; "ratings" for "rating".
    if (!exactCase && /^[a-z]{4,}$/i.test(spelled)) sources.push(...inflections(spelled).map(escapeRegExp));
    for (const [i, source] of sources.entries()) {
      const pattern = new RegExp(`(?<![\\w-])${source}(?![\\w-])`, exactCase && i === 0 ? 'g' : 'gi');
      for (const m of text.matchAll(pattern)) {
        const span = { start: m.index, end: m.index + m[0].length, text: m[0] };
        if (taken.some((t) => overlaps(t, span))) continue;
        found.push({ ...span, value });
      }
    }
  }
  // A longer match hides the shorter ones inside it ("count distinct" is not also "count").
  return found.filter((f) => !found.some((g) => g !== f && g.start <= f.start && g.end >= f.end && g.end - g.start > f.end - f.start)).sort((a, b) => a.start - b.start);
}

/**
 * The other number of a plain word ("strengths" → "strength", "rating" → "ratings"), and for a word that is no plural
 * its past ("complete" → "completed"), its -ing and its -al adjective ("music" → "musical", "rent" → "rental").
 */
function inflections(word: string): string[] {
  if (/(?:ss|us|is)$/i.test(word)) return [];
  if (/(?:sses|xes|ches|shes)$/i.test(word)) return [word.slice(0, -2)];
  if (/s$/i.test(word)) return [word.slice(0, -1)];
  const base = word.replace(/e$/i, '');
  return [`${word}s`, `${base}ed`, `${base}ing`, `${base}al`];
}
