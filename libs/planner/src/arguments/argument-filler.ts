import type { JsonSchema } from '@toolgate/sdk';
import { DateTime } from 'luxon';
import type { ArgumentFill, ArgumentFillContext, Span } from './argument-fill.types';
import { type DateMention, extractDates } from './date-time.extractor';
import { extractEmails } from './email.extractor';
import { matchEnum } from './enum.matcher';
import { extractCurrencies, extractNumbers, extractUnits, type NumberMention } from './number.extractor';
import { extractPaths } from './path.extractor';
import { extractPersonName } from './person-name.extractor';
import { extractQuoted } from './quoted.extractor';
import { refusedArguments } from './schema-check';
import { operationItem, type Role, type SchemaField, schemaFields, sortItem } from './schema-fields';
import { extractAssignments, extractExpressions, extractJson } from './structured.extractor';
import { extractCsvBlock, extractSortKey } from './table-text.extractor';
import { overlaps, stem, type Word, wordsBefore, wordsOf } from './text-span';
import { extractTimeZones, type ZoneMention } from './time-zone.extractor';
import { extractUrls } from './url.extractor';

/** A value the text offers for a field, with where it was read and which side of a pair it leans to. */
interface Candidate {
  value: unknown;
  span: Span;
  hint?: Role;
  /** Extra spans consumed with the value (the zone written with a date). */
  claims?: Span[];
}

const SOURCE_CUES = new Set(['from', 'since', 'starting', 'between', 'of']);
const TARGET_CUES = new Set(['to', 'into', 'in', 'until', 'till', 'as', 'through']);
const STRONG_CUES = new Set(['from', 'since', 'until', 'till', 'into', 'between']);
const NEGATIONS = new Set(['no', 'not', 'without', "don't", 'dont', 'never', 'exclude', 'excluding', 'skip', 'omit', "doesn't", "isn't"]);
const IMAGE_WORDS = /\b(?:image|screenshot|picture|photo|scan|attached|attachment|upload(?:ed)?)\b/i;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const wordMatches = (a: string, b: string) => a === b || (a.length >= 5 && b.length >= 5 && a.slice(0, 5) === b.slice(0, 5));
/** Words that point at a count-limiting field without naming it ("the first 20 rows", "top 5"). */
const POINTERS: Record<string, string[]> = { first: ['limit', 'max', 'most'], top: ['limit', 'max', 'most', 'k'] };

/** The filler's working state for one task: what the text offers and what has been used. */
class Filling {
  readonly words: Word[];
  readonly used: Span[] = [];
  readonly fill: ArgumentFill = { arguments: {}, missing: [], ambiguous: [], evidence: {} };
  /** Spans whose content is data (quoted text, URLs, JSON): never read as numbers, enums or flags. */
  readonly opaque: Span[];
  readonly quoted: ReturnType<typeof extractQuoted>;
  readonly urls;
  readonly emails;
  readonly json;
  readonly paths;
  readonly dates: DateMention[];
  readonly zones: ZoneMention[];
  readonly numbers: NumberMention[];
  /** Local dates written into arguments: their zone goes to the source-zone field. */
  readonly localDates: DateMention[] = [];

  constructor(
    readonly text: string,
    readonly context: ArgumentFillContext,
    readonly takesDates: boolean,
  ) {
    this.words = wordsOf(text);
    this.quoted = extractQuoted(text);
    this.urls = extractUrls(text);
    this.emails = extractEmails(text, this.urls);
    // JSON written inside a quote is part of the quoted text ("mean([2, 4])"); quotes inside JSON are the JSON's.
    this.json = extractJson(text).filter((j) => !this.quoted.some((q) => q.start < j.start && j.end < q.end));
    this.quoted = this.quoted.filter((q) => !this.json.some((j) => overlaps(j, q)));
    const web = [...this.urls, ...this.emails, ...this.json];
    this.opaque = [...web, ...this.quoted];
    // A quoted path may hold spaces ("docs/setup guide.md"): the quote is the path.
    const quotedPaths = this.quoted.filter(
      (q) => /[\\/]|^[^\s]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$|\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(q.value) && !this.urls.some((u) => overlaps(u, q)) && !/\s{2,}|[.!?]\s/.test(q.value),
    );
    this.paths = [...quotedPaths.map((q) => ({ start: q.start, end: q.end, text: q.text, value: q.value, folder: q.value.endsWith('/') })), ...extractPaths(text, [...web, ...quotedPaths])].sort(
      (a, b) => a.start - b.start,
    );
    this.dates = extractDates(text, context.referenceTime, context.timeZone, [...web, ...this.paths]);
    this.zones = extractTimeZones(text, context.timeZone).filter((z) => !this.opaque.some((o) => overlaps(o, z)));
    // "seconds in three hours" is a quantity, not a date, for a tool that takes no date.
    this.numbers = extractNumbers(text, [...this.opaque, ...this.paths, ...(takesDates ? [...this.dates, ...this.zones] : [])]);
  }

  isFree(span: Span): boolean {
    return !this.used.some((u) => overlaps(u, span));
  }

  hintOf(span: Span): Role | undefined {
    const before = wordsBefore(this.words, span.start, 3);
    const [previous, last] = [before.at(-2), before.at(-1)];
    let cue = last === 'the' || last === 'a' || last === 'either' ? previous : last;
    // "until Christmas 2026-12-25": a strong cue still counts a name or two away.
    if (!cue || !(SOURCE_CUES.has(cue) || TARGET_CUES.has(cue) || cue === 'and')) cue = [...before].reverse().find((w) => STRONG_CUES.has(w)) ?? cue;
    if (!cue) return undefined;
    if (SOURCE_CUES.has(cue) && cue !== 'of') return 'source';
    if (cue === 'and' && /\bbetween\b/i.test(this.text.slice(0, span.start))) return 'target';
    if (TARGET_CUES.has(cue)) return 'target';
    return undefined;
  }

  set(field: SchemaField, candidate: Candidate): void {
    this.fill.arguments[field.name] = candidate.value;
    this.fill.evidence[field.name] = candidate.span.text;
    this.used.push(candidate.span, ...(candidate.claims ?? []));
  }

  ambiguous(field: SchemaField, options: unknown[]): void {
    this.fill.ambiguous.push({ path: `/${field.name}`, options });
  }

  /** One value per field, or the pair (source, target) by cue words, then by order of mention. */
  assign(fields: SchemaField[], candidates: Candidate[]): void {
    const free = candidates.filter((c) => this.isFree(c.span)).sort((a, b) => a.span.start - b.span.start);
    // "to EUR and GBP": a value joined to the previous one by "and"/"or" shares its side.
    for (let i = 1; i < free.length; i++) {
      if (!free[i].hint && /^\s*(?:,|,?\s*and|,?\s*or|&)\s*$/i.test(this.text.slice(free[i - 1].span.end, free[i].span.start))) free[i] = { ...free[i], hint: free[i - 1].hint };
    }
    if (fields.length === 1 && !fields[0].role) {
      this.single(fields[0], free);
      return;
    }
    const open = [...fields];
    const byRole = (role: Role) => free.filter((c) => c.hint === role);
    const unhinted = free.filter((c) => !c.hint);
    const decided = new Set<SchemaField>();
    for (const field of open) {
      if (!field.role) continue;
      const hinted = distinct(byRole(field.role));
      if (hinted.length === 1) {
        this.set(field, hinted[0]);
        decided.add(field);
      } else if (hinted.length > 1) {
        this.ambiguous(
          field,
          hinted.map((c) => c.value),
        );
        decided.add(field);
      }
    }
    const order = open.filter((f) => !decided.has(f)).sort((a, b) => (a.role === 'target' ? 1 : 0) - (b.role === 'target' ? 1 : 0));
    const rest = distinct(unhinted.filter((c) => this.isFree(c.span)));
    for (const field of order) {
      const next = rest.shift();
      if (next) this.set(field, next);
    }
  }

  single(field: SchemaField, candidates: Candidate[]): void {
    const options = distinct(candidates);
    if (options.length === 1) this.set(field, options[0]);
    else if (options.length > 1)
      this.ambiguous(
        field,
        options.map((c) => c.value),
      );
  }
}

function distinct(candidates: Candidate[]): Candidate[] {
  return candidates.filter((c, i) => candidates.findIndex((d) => same(d.value, c.value)) === i);
}

function renderDate(field: SchemaField, mention: DateMention, option: DateTime, sourceZoneField: boolean, wall = option.toFormat("yyyy-MM-dd'T'HH:mm:ss")): string {
  const format = field.schema.format;
  if (format === 'date') return option.toISODate() as string;
  if (format === 'time') return option.toISOTime({ suppressMilliseconds: true }) as string;
  if (format === 'date-time') return option.toISO({ suppressMilliseconds: true }) as string;
  if (mention.withOffset) return mention.withOffset;
  if (mention.granularity === 'date') return option.toISODate() as string;
  // With a field that carries the zone, the local wall time is what the user wrote; without one the offset must travel with it.
  return sourceZoneField ? wall : (option.toISO({ suppressMilliseconds: true }) as string);
}

function fillDates(state: Filling, fields: SchemaField[], all: SchemaField[]): void {
  const { context } = state;
  const sourceZone = all.find((f) => f.kind === 'zone' && f.zoneRole === 'source');
  for (const field of fields.filter((f) => f.dateStyle === 'reference')) {
    const value = DateTime.fromJSDate(context.referenceTime).toUTC().toISO({ suppressMilliseconds: true });
    state.fill.arguments[field.name] = value;
    state.fill.evidence[field.name] = 'the reference time';
  }
  const written: DateMention[] = [];
  for (const field of fields.filter((f) => f.dateStyle === 'phrase')) {
    const phrases = state.dates.map((d) => ({ value: d.phrase, span: d as Span }));
    const quotedFallback = phrases.length === 0 ? state.quoted.map((q) => ({ value: q.value, span: q as Span })) : [];
    state.single(field, [...phrases, ...quotedFallback]);
    const mention = state.dates.find((d) => d.phrase === state.fill.arguments[field.name]);
    if (mention) written.push(mention);
  }
  const valueFields = fields.filter((f) => f.dateStyle === 'value');
  if (valueFields.length > 0) written.push(...fillDateValues(state, valueFields, Boolean(sourceZone)));
  // The zone a date was written with ("9am Tokyo time") travels in the tool's source-zone field.
  const local = written.filter((m) => !m.withOffset);
  state.localDates.push(...local);
  const explicit = local.find((m) => m.zoneSpan);
  if (sourceZone && explicit && !(sourceZone.name in state.fill.arguments)) {
    const attached = state.zones.find((z) => z.start === explicit.zoneSpan?.start);
    if (attached && attached.zones.length > 1) state.ambiguous(sourceZone, attached.zones);
    else {
      state.fill.arguments[sourceZone.name] = explicit.zone;
      state.fill.evidence[sourceZone.name] = explicit.zoneSpan?.text ?? explicit.zone;
    }
    if (attached) state.used.push(attached);
  }
}

/** Date fields that take the value itself; returns the mentions written into them. */
function fillDateValues(state: Filling, fields: SchemaField[], zoneTravelsApart: boolean): DateMention[] {
  const before = new Set(Object.keys(state.fill.arguments));
  // Each reading rendered for the field; two readings (03/04/2026) are a question, not a guess.
  const rendered = (field: SchemaField, mention: DateMention): Candidate => {
    const values = mention.options.map((o, i) => renderDate(field, mention, o, zoneTravelsApart, mention.walls[i]));
    return { value: values.length === 1 ? values[0] : { ambiguous: values }, span: mention, hint: state.hintOf(mention), claims: mention.zoneSpan ? [mention.zoneSpan] : [] };
  };
  state.assign(
    fields,
    state.dates.map((d) => rendered(fields[0], d)),
  );
  // "until Friday" / "since March 3": the other end is the reference instant.
  const [source, target] = [fields.find((f) => f.role === 'source'), fields.find((f) => f.role === 'target')];
  if (source && target && source.name in state.fill.arguments !== target.name in state.fill.arguments) {
    const given = source.name in state.fill.arguments ? source : target;
    const other = given === source ? target : source;
    const mention = state.dates.find((d) => state.fill.evidence[given.name] === d.text);
    const cue = given === target ? /\b(?:until|till|before)\b/i : /\bsince\b/i;
    if (mention && cue.test(state.text)) {
      const now = DateTime.fromJSDate(state.context.referenceTime, { zone: mention.zone });
      const value = mention.granularity === 'date' ? (now.toISODate() as string) : renderDate(other, { ...mention, withOffset: undefined, granularity: 'datetime' }, now, zoneTravelsApart);
      state.fill.arguments[other.name] = value;
      state.fill.evidence[other.name] = 'now (the reference time)';
    }
  }
  const written: DateMention[] = [];
  for (const field of fields) {
    const value = state.fill.arguments[field.name];
    if (value && typeof value === 'object' && 'ambiguous' in value) {
      delete state.fill.arguments[field.name];
      delete state.fill.evidence[field.name];
      state.ambiguous(field, (value as { ambiguous: unknown[] }).ambiguous);
    } else if (!before.has(field.name) && field.name in state.fill.arguments) {
      const mention = state.dates.find((d) => state.fill.evidence[field.name] === d.text);
      if (mention) written.push(mention);
    }
  }
  return written;
}

/** A local date written without a zone is in the task's zone, unless the words named the source zone. */
function fillImpliedSourceZone(state: Filling, fields: SchemaField[]): void {
  const sourceZone = fields.find((f) => f.kind === 'zone' && f.zoneRole === 'source');
  if (!sourceZone || state.localDates.length === 0 || sourceZone.name in state.fill.arguments || state.fill.ambiguous.some((a) => a.path === `/${sourceZone.name}`)) return;
  state.fill.arguments[sourceZone.name] = state.localDates[0].zone;
  state.fill.evidence[sourceZone.name] = 'the task time zone';
}

function fillZones(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => !(f.name in state.fill.arguments) && !state.fill.ambiguous.some((a) => a.path === `/${f.name}`));
  if (open.length === 0) return;
  const zoneCandidates = (mentions: ZoneMention[]) =>
    mentions.map((z): Candidate => {
      const attachedToDate = state.dates.some((d) => d.zoneSpan?.start === z.start);
      return { value: z.zones.length === 1 ? z.zones[0] : { ambiguous: z.zones }, span: z, hint: attachedToDate ? 'source' : state.hintOf(z) };
    });
  const paired = open.map((f) => ({ ...f, role: f.zoneRole === 'neutral' ? undefined : f.zoneRole }));
  if (paired.length === 1 && paired[0].role === 'target') paired[0].role = undefined;
  state.assign(paired, zoneCandidates(state.zones));
  for (const field of open) {
    const value = state.fill.arguments[field.name];
    if (value && typeof value === 'object') {
      delete state.fill.arguments[field.name];
      state.ambiguous(field, (value as { ambiguous: unknown[] }).ambiguous);
    }
  }
}

function fieldScore(state: Filling, field: SchemaField, span: Span): number {
  const near = state.words.filter((w) => (w.end <= span.start + 1 ? span.start - w.end < 30 : w.start >= span.end && w.start - span.end < 30)).filter((w) => !overlaps(w, span));
  const window = [...near.filter((w) => w.end <= span.start).slice(-3), ...near.filter((w) => w.start >= span.end).slice(0, 3)].map((w) => stem(w.word));
  let score = 0;
  for (const word of window) {
    if (field.nameWords.some((n) => wordMatches(n, word) || POINTERS[word]?.includes(n))) score += 2;
    else if (field.descriptionWords.some((d) => wordMatches(d, word))) score += 1;
  }
  return score;
}

const TIME_UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  min: 60000,
  mins: 60000,
  minute: 60000,
  minutes: 60000,
};

function numericValue(field: SchemaField, mention: NumberMention): number | undefined {
  let value = mention.value;
  // A field counted in milliseconds takes "5 seconds" as 5000.
  if (/Ms$|_ms$/.test(field.name) && mention.unit) {
    const factor = TIME_UNIT_MS[mention.unit.text.toLowerCase()];
    if (factor === undefined) return undefined;
    value *= factor;
  }
  const { minimum, maximum, type } = field.schema as { minimum?: number; maximum?: number; type?: string };
  if (type === 'integer' && !Number.isInteger(value)) return undefined;
  if (typeof minimum === 'number' && value < minimum) return undefined;
  if (typeof maximum === 'number' && value > maximum) return undefined;
  return value;
}

function fillNumbers(state: Filling, fields: SchemaField[], all: SchemaField[]): void {
  const numbers = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' }));
  const quantityField = (f: SchemaField) => all.some((g) => (g.kind === 'unit' || g.kind === 'currency') && g !== f) && f.required;
  const pairs: { field: SchemaField; mention: NumberMention; value: number; score: number }[] = [];
  for (const field of fields) {
    for (const mention of numbers) {
      const value = numericValue(field, mention);
      if (value === undefined) continue;
      let score = fieldScore(state, field, mention) + (mention.unit && field.nameWords.concat(field.descriptionWords).some((w) => wordMatches(w, stem(mention.unit?.text ?? ''))) ? 2 : 0);
      if (quantityField(field) && (mention.unit || mention.currency)) score += 3;
      if (quantityField(field) && !mention.unit && !mention.currency && all.some((g) => g.kind === 'unit') && numbers.some((n) => n.unit)) score -= 1;
      pairs.push({ field, mention, value, score });
    }
  }
  pairs.sort((a, b) => b.score - a.score || a.mention.start - b.mention.start);
  const done = new Set<SchemaField>();
  // "5 feet or 6 feet to meters": two measured amounts for one quantity is a question.
  for (const field of fields.filter(quantityField)) {
    const measured = [...new Set(pairs.filter((p) => p.field === field && (p.mention.unit || p.mention.currency)).map((p) => p.value))];
    if (measured.length > 1) {
      state.ambiguous(field, measured);
      done.add(field);
    }
  }
  const taken = new Set<NumberMention>();
  for (const pair of pairs) {
    if (pair.score <= 0 || done.has(pair.field) || taken.has(pair.mention)) continue;
    const rivals = pairs.filter((p) => p.field === pair.field && p.score === pair.score && !taken.has(p.mention) && p.value !== pair.value);
    done.add(pair.field);
    if (rivals.length > 0) {
      state.ambiguous(pair.field, [pair.value, ...rivals.map((r) => r.value)]);
      continue;
    }
    taken.add(pair.mention);
    state.set(pair.field, { value: pair.value, span: pair.mention });
  }
  // A required number the words do not point at takes the only number left; two or more are a question.
  for (const field of fields.filter((f) => f.required && !done.has(f))) {
    const left = pairs.filter((p) => p.field === field && !taken.has(p.mention) && p.score >= 0);
    const values = [...new Set(left.map((p) => p.value))];
    if (values.length === 1) {
      taken.add(left[0].mention);
      state.set(field, { value: left[0].value, span: left[0].mention });
    } else if (values.length > 1) state.ambiguous(field, values);
  }
}

function fillEnums(state: Filling, field: SchemaField): void {
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

function fillBoolean(state: Filling, field: SchemaField): void {
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

function fillStringList(state: Filling, field: SchemaField): void {
  const cue = field.nameWords.join('\\w*\\s+(?:\\w+\\s+){0,2}');
  const pattern = new RegExp(`\\b${cue}\\w*\\s+(?:the\\s+)?(?:columns?\\s+)?([\\w-]+(?:\\s*(?:,|\\band\\b|&)\\s*[\\w-]+)*)`, 'i');
  // A grouping field ("groupBy") is also named by "per team" or "for each region".
  const grouping = field.nameWords.includes('by') ? /\b(?:per|for each|for every|by)\s+()([\w-]+(?:[ \t]*(?:,|\band\b|&)[ \t]*[\w-]+)*)/i.exec(state.text) : null;
  const m = pattern.exec(state.text) ?? (grouping ? Object.assign([grouping[0], grouping[2]], { index: grouping.index }) : null);
  if (!m) return;
  const stop = /^(?:and|then|sum|total|average|mean|count|max|min|with|to|of|the|by|for|showing|show)$/i;
  const items: string[] = [];
  for (const item of m[1].split(/\s*(?:,|\band\b|&)\s*/)) {
    const word = item.trim().split(/\s+/)[0];
    if (!word || stop.test(word)) break;
    items.push(word);
  }
  if (items.length === 0) return;
  const start = m.index + m[0].indexOf(m[1]);
  // The span ends with the last item, so the words after it ("and sum the sales") stay free.
  let end = start;
  for (const item of items) end = state.text.indexOf(item, end) + item.length;
  state.set(field, { value: items, span: { start, end, text: state.text.slice(start, end) } });
}

const NOT_OPERANDS = new Set(['of', 'the', 'all', 'a', 'an', 'and', 'by', 'per', 'for', 'rows', 'row', 'records', 'entries', 'items', 'it', 'them', 'then', 'values']);

function fillOperations(state: Filling, field: SchemaField): void {
  const items = field.schema.items as JsonSchema;
  const shape = operationItem(items);
  if (!shape) return;
  const operations = ((items.properties as Record<string, JsonSchema>)[shape.operation].enum as unknown[]) ?? [];
  const matches = matchEnum(state.text, operations, [...state.opaque, ...state.used]);
  const header = extractCsvBlock(state.text)?.header;
  const list: Record<string, unknown>[] = [];
  for (const match of matches) {
    const after = state.words.filter((w) => w.start >= match.end).slice(0, 3);
    const operand = after.find((w, i) => !NOT_OPERANDS.has(w.word) && after.slice(0, i).every((p) => ['of', 'the', 'all'].includes(p.word)));
    const item: Record<string, unknown> = { [shape.operation]: match.value };
    const written = operand ? state.text.slice(operand.start, operand.end) : undefined;
    // With the table in the text, an operand is one of its columns ("how many orders" counts rows, not a column "orders").
    const column = header && written ? header.find((h) => h.toLowerCase() === written.toLowerCase()) : written;
    if (column && shape.operand) item[shape.operand] = column;
    if (!list.some((l) => same(l, item))) list.push(item);
  }
  if (list.length === 0) return;
  state.fill.arguments[field.name] = list;
  state.fill.evidence[field.name] = matches.map((m) => m.text).join(', ');
}

function fillSortKeys(state: Filling, field: SchemaField): void {
  const shape = sortItem(field.schema.items as JsonSchema);
  const key = extractSortKey(state.text);
  if (!shape || !key) return;
  const item: Record<string, unknown> = { [shape.column]: key.column };
  if (key.direction && shape.direction) item[shape.direction] = key.direction;
  state.fill.arguments[field.name] = [item];
  state.fill.evidence[field.name] = key.text;
}

function fillTexts(state: Filling, fields: SchemaField[]): void {
  const quoted = state.quoted.filter((q) => state.isFree(q) && !state.used.some((u) => overlaps(u, q)));
  const open = fields.filter((f) => !(f.name in state.fill.arguments));
  const candidates = quoted.map((q) => ({ value: q.value, span: q as Span }));
  // A quote goes to the field its neighbouring words name ("titled 'Q1'"), then the only field to the only quote.
  const scored = open.flatMap((field) => candidates.map((c) => ({ field, c, score: fieldScore(state, field, c.span) })));
  scored.sort((a, b) => b.score - a.score || a.c.span.start - b.c.span.start);
  for (const { field, c, score } of scored) {
    if (score <= 0 || field.name in state.fill.arguments || !state.isFree(c.span)) continue;
    state.set(field, c);
  }
  const stillOpen = open.filter((f) => !(f.name in state.fill.arguments));
  const left = candidates.filter((c) => state.isFree(c.span));
  const requiredOpen = stillOpen.filter((f) => f.required);
  if (stillOpen.length === 1 && (stillOpen[0].required || left.length === 1)) state.single(stillOpen[0], left);
  else if (requiredOpen.length === 1 && left.length > 0) state.single(requiredOpen[0], left);
  for (const field of stillOpen.filter((f) => f.long && !(f.name in state.fill.arguments) && !state.fill.ambiguous.some((a) => a.path === `/${f.name}`))) {
    const json = state.json.find((j) => state.isFree(j));
    if (json && /json/i.test(String(field.schema.description ?? ''))) {
      state.set(field, { value: json.text, span: json });
      continue;
    }
    const block = /\bcsv\b|\btable\b/i.test(`${field.name} ${field.schema.description ?? ''}`) ? extractCsvBlock(state.text) : undefined;
    if (block && state.isFree(block)) {
      state.set(field, { value: block.text, span: block });
      continue;
    }
    const colon = /:\s*\n|:\s+(?=\S)/.exec(state.text);
    if (colon && state.isFree({ start: colon.index, end: colon.index + 1, text: ':' }) && !state.urls.some((u) => colon.index >= u.start && colon.index < u.end)) {
      const start = colon.index + colon[0].length;
      const value = state.text.slice(start).trim();
      if (value) {
        state.set(field, { value, span: { start, end: state.text.length, text: value } });
        continue;
      }
    }
    if (state.context.imageText && IMAGE_WORDS.test(state.text)) {
      state.fill.arguments[field.name] = state.context.imageText;
      state.fill.evidence[field.name] = 'the text read from the image';
    }
  }
}

/** first_name / last_name style fields take the parts of a person's name. */
function fillPersonName(state: Filling, fields: SchemaField[]): void {
  const firstField = fields.find((f) => /^(?:first|given)_?name$/i.test(f.name));
  const lastField = fields.find((f) => /^(?:last|family|sur)_?name$/i.test(f.name));
  if (!firstField && !lastField) return;
  const name = extractPersonName(state.text);
  if (firstField && name.first && state.isFree(name.first)) state.set(firstField, { value: name.first.value, span: name.first });
  if (lastField && name.last && state.isFree(name.last)) state.set(lastField, { value: name.last.value, span: name.last });
}

function fillPath(state: Filling, field: SchemaField): void {
  const wantsFolder = /^(?:folder|director)/i.test(String(field.schema.description ?? '')) || /folder|dir/i.test(field.name);
  const paths = state.paths.filter((p) => state.isFree(p));
  const preferred = paths.filter((p) => p.folder === wantsFolder || (wantsFolder && !/\.\w+$/.test(p.value)));
  const chosen = preferred.length > 0 ? preferred : paths;
  if (chosen.length > 0) {
    state.single(
      field,
      chosen.map((p) => ({ value: p.value, span: p })),
    );
    return;
  }
  const named = (state.context.images ?? []).filter((i) => i.name);
  if (named.length > 0 && IMAGE_WORDS.test(state.text)) {
    if (named.length === 1) {
      state.fill.arguments[field.name] = named[0].name;
      state.fill.evidence[field.name] = 'the attached image';
    } else
      state.ambiguous(
        field,
        named.map((i) => i.name),
      );
  }
}

/**
 * Fills a tool's arguments from a task's words by the tool's input schema: what each field wants
 * (its type, format, enum, name and description) picks among the values the text offers. Pure and
 * deterministic; a value the text does not give is missing, two equally plausible ones are ambiguous.
 */
export function fillArguments(text: string, inputSchema: JsonSchema, context: ArgumentFillContext): ArgumentFill {
  const fields = schemaFields(inputSchema);
  const state = new Filling(
    text,
    context,
    fields.some((f) => f.kind === 'date' || f.kind === 'zone'),
  );
  const given = context.given ?? {};
  for (const [name, value] of Object.entries(given)) {
    state.fill.arguments[name] = value;
    state.fill.evidence[name] = 'given';
  }
  const open = (kind: SchemaField['kind']) => fields.filter((f) => f.kind === kind && !(f.name in given));

  for (const field of open('url'))
    state.single(
      field,
      state.urls.filter((u) => state.isFree(u)).map((u) => ({ value: u.value, span: u })),
    );
  for (const field of open('email'))
    state.single(
      field,
      state.emails.filter((e) => state.isFree(e)).map((e) => ({ value: e.value, span: e })),
    );
  for (const field of open('path')) fillPath(state, field);
  fillDates(state, open('date'), fields);
  fillZones(state, open('zone'));
  fillImpliedSourceZone(state, fields);

  const currencies = extractCurrencies(text, state.numbers, [...state.opaque, ...state.used]);
  state.assign(
    open('currency'),
    currencies.map((c) => ({ value: c.code, span: c, hint: c.attached ? 'source' : state.hintOf(c) })),
  );
  const units = extractUnits(text, state.numbers, [...state.opaque, ...state.used, ...(state.takesDates ? state.dates : [])]);
  state.assign(
    open('unit'),
    units.map((u) => ({ value: u.text, span: u, hint: u.attached ? 'source' : state.hintOf(u) })),
  );

  const expressions = open('expression');
  for (const field of expressions) {
    const quoted = state.quoted.filter((q) => state.isFree(q)).map((q) => ({ value: q.value, span: q as Span }));
    const written = extractExpressions(text, [...state.opaque, ...state.used]).map((e) => ({ value: e.value, span: e as Span }));
    state.single(field, quoted.length > 0 ? quoted : written);
  }
  for (const field of open('number-map')) {
    const assignments = extractAssignments(text, [...state.opaque]);
    if (assignments.length === 0) continue;
    const value = Object.fromEntries(assignments.map((a) => [a.name, a.value]));
    state.set(field, { value, span: { start: assignments[0].start, end: assignments.at(-1)?.end ?? 0, text: assignments.map((a) => a.text).join(', ') } });
  }
  fillNumbers(state, open('number'), fields);
  for (const field of [...open('enum'), ...open('enum-list')]) fillEnums(state, field);
  for (const field of open('boolean')) fillBoolean(state, field);
  for (const field of open('string-list')) fillStringList(state, field);
  for (const field of open('operation-list')) fillOperations(state, field);
  for (const field of open('sort-list')) fillSortKeys(state, field);
  fillPersonName(state, open('text'));
  fillTexts(state, open('text'));

  dropInvalid(state, inputSchema);
  const ambiguous = new Set(state.fill.ambiguous.map((a) => a.path));
  for (const field of fields) {
    if (field.required && !field.hasDefault && !(field.name in state.fill.arguments) && !ambiguous.has(`/${field.name}`)) {
      state.fill.missing.push({ path: `/${field.name}`, description: typeof field.schema.description === 'string' ? field.schema.description : undefined });
    }
  }
  return state.fill;
}

/** Arguments the schema refuses are not kept (the schema is never loosened to fit them). */
function dropInvalid(state: Filling, inputSchema: JsonSchema): void {
  for (const name of refusedArguments(inputSchema, state.fill.arguments)) {
    if (!(name in state.fill.arguments) || (state.context.given && name in state.context.given)) continue;
    delete state.fill.arguments[name];
    delete state.fill.evidence[name];
  }
}
