// Date and time-zone fields: values rendered to the field's format, phrases, and the zone a date was written in.
import { DateTime } from 'luxon';
import type { Span } from './argument-fill.types';
import type { DateMention } from './date-time.extractor';
import type { Candidate, Filling } from './filling.state';
import type { SchemaField } from './schema.fields';
import type { ZoneMention } from './time-zone.extractor';

/** A date format the description states in words ("Format: yyyy-mm-dd", "in MM-DD-YYYY format", "(month-day-year)"), as a Luxon pattern. */
export function statedDateFormat(description: string): string | undefined {
  // "MM-DD-YYY" is a typo for the full year, as is any run of three or more y's. "YYYY-MM-DD HH:mm:ss": the day and its clock.
  const pattern = /\b((?:y{2,4}|mm|dd)(?:([-/.])(?:y{2,4}|mm|dd)){1,2})(?:([ T])(hh:mm(?::ss)?))?\b/i.exec(description);
  // "YYYY-MM-DDTHH:MM:SS" keeps its T.
  const joint = pattern?.[3]?.toUpperCase() === 'T' ? "'T'" : ' ';
  if (pattern)
    return (
      pattern[1]
        .replace(/y{3,4}/gi, 'yyyy')
        .replace(/y/gi, 'y')
        .replace(/m/gi, 'M')
        .replace(/d/gi, 'd') + (pattern[4] ? `${joint}${pattern[4].length > 5 ? 'HH:mm:ss' : 'HH:mm'}` : '')
    );
  const words = /\b(month|day|year)([-/])(month|day|year)\2(month|day|year)\b/i.exec(description);
  if (!words) return undefined;
  const part: Record<string, string> = { month: 'MM', day: 'dd', year: 'yyyy' };
  return [words[1], words[3], words[4]].map((w) => part[w.toLowerCase()]).join(words[2]);
}

/** A clock format the description states: "HH:MM" (24-hour), "XX:XXAM or XX:XXPM", "hh:mm AM/PM" (12-hour, as written), as a Luxon pattern. */
export function statedClockFormat(description: string): string | undefined {
  const twelve = /\b(?:x{1,2}|h{1,2}):(?:x{2}|m{2})(\s?)(?:am|pm|a\.m\.)/i.exec(description);
  if (twelve) return `hh:mm${twelve[1]}a`;
  return /\bhh?:mm\b/i.test(description) ? 'HH:mm' : undefined;
}

function renderDate(field: SchemaField, mention: DateMention, option: DateTime, sourceZoneField: boolean, wall = option.toFormat("yyyy-MM-dd'T'HH:mm:ss")): string {
  const format = field.schema.format;
  const stated = format ? undefined : statedDateFormat(String(field.schema.description ?? ''));
  // The format the description states is the value's shape: a day alone, or a day and its clock ("2024-03-19 13:00:00").
  if (stated && !(mention.timeOnly && timeOfDay(field))) return option.toFormat(stated);
  if (format === 'date') return option.toISODate() as string;
  if (format === 'time') return option.toISOTime({ suppressMilliseconds: true }) as string;
  if (format === 'date-time') return option.toISO({ suppressMilliseconds: true }) as string;
  if (mention.withOffset) return mention.withOffset;
  // "at 3pm" for a time-of-day field: the clock time as written, never a day the writer did not give.
  if (mention.timeOnly && timeOfDay(field)) {
    const clock = statedClockFormat(String(field.schema.description ?? ''));
    return clock ? option.toFormat(clock) : mention.phrase;
  }
  if (mention.granularity === 'date') return option.toISODate() as string;
  // With a field that carries the zone, the local wall time is what the user wrote; without one the offset must travel with it.
  return sourceZoneField ? wall : (option.toISO({ suppressMilliseconds: true }) as string);
}

/** A field for a clock time, not an instant: named `time` (not a date-time or timestamp) and described without a day. */
function timeOfDay(field: SchemaField): boolean {
  return /(?:^|_)time$/i.test(field.name) && !/date|stamp/i.test(field.name) && !/\b(?:date|day|iso ?8601|timestamp)\b/i.test(String(field.schema.description ?? ''));
}

export function fillDates(state: Filling, fields: SchemaField[], all: SchemaField[]): void {
  const { context } = state;
  // The zone the dates are written in: a field that says so, or a tool's one zone field that is neither side of a conversion.
  const zoneFields = all.filter((f) => f.kind === 'zone');
  const sourceZone = zoneFields.find((f) => f.zoneRole === 'source') ?? (zoneFields.length === 1 && zoneFields[0].zoneRole === 'neutral' ? zoneFields[0] : undefined);
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
      if (!mention) continue;
      // Each field renders its own mention: a clock-time field beside a date field keeps its clock format.
      if (mention.options.length === 1) state.fill.arguments[field.name] = renderDate(field, mention, mention.options[0], zoneTravelsApart, mention.walls[0]);
      written.push(mention);
    }
  }
  return written;
}

/** A local date written without a zone is in the task's zone, unless the words named the source zone. */
export function fillImpliedSourceZone(state: Filling, fields: SchemaField[]): void {
  const sourceZone = fields.find((f) => f.kind === 'zone' && f.zoneRole === 'source');
  if (!sourceZone || state.localDates.length === 0 || sourceZone.name in state.fill.arguments || state.fill.ambiguous.some((a) => a.path === `/${sourceZone.name}`)) return;
  state.fill.arguments[sourceZone.name] = state.localDates[0].zone;
  state.fill.evidence[sourceZone.name] = 'the task time zone';
}

export function fillZones(state: Filling, fields: SchemaField[]): void {
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
  // "the time in Sydney, Australia": a city read as its zone is still the city a place field may take.
  const places = new Set(state.zones.filter((z) => /^[A-Z][a-z]/.test(z.text) && !z.text.includes('/')));
  state.used.splice(0, state.used.length, ...state.used.filter((span) => !places.has(span as ZoneMention)));
  for (const field of open) {
    const value = state.fill.arguments[field.name];
    if (value && typeof value === 'object') {
      delete state.fill.arguments[field.name];
      state.ambiguous(field, (value as { ambiguous: unknown[] }).ambiguous);
    }
  }
}
