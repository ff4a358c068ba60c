import { DateTime, type DurationLikeObject } from 'luxon';
import type { Span } from './argument-fill.types';
import { overlaps } from './text-span.util';
import { extractTimeZones, type ZoneMention } from './time-zone.extractor';

export type Granularity = 'date' | 'datetime';

export interface DateMention extends Span {
  /** The date words without their zone ("next Friday at 3pm" of "next Friday at 3pm Tokyo time"). */
  phrase: string;
  granularity: Granularity;
  /** What the words mean in `zone`; more than one when they are ambiguous (03/04/2026). */
  options: DateTime[];
  /** Each option's wall-clock time as written ("2026-03-29T01:30:00"), even one a DST gap skips. */
  walls: string[];
  zone: string;
  /** The zone was written with the date (an abbreviation, a city, an IANA name or an offset). */
  zoneExplicit: boolean;
  /** An ISO 8601 text written with its own offset ("2026-03-01T10:00:00Z"): kept as written. */
  withOffset?: string;
  zoneSpan?: Span;
  /** A clock time written without any day ("at 3pm"): the day in `options` is the reference's, not the writer's. */
  timeOnly?: true;
}

type Calendar = { year?: number; month: number; day: number };
type DatePart =
  | { kind: 'calendar'; options: Calendar[] }
  | { kind: 'relative'; days: number }
  | { kind: 'month-day'; day: number; months: number }
  | { kind: 'weekday'; weekday: number; mode: 'this' | 'next' | 'last' };
type TimePart = { hour: number; minute: number; second: number };
type OffsetPart = { amount: number; unit: keyof DurationLikeObject };

interface Piece extends Span {
  date?: DatePart;
  time?: TimePart;
  offset?: OffsetPart;
  now?: true;
  iso?: { text: string; hasOffset: boolean; hasTime: boolean };
  /** The day was written after the time ("17:40 tomorrow"), so a bare time just before may share it. */
  dayTrails?: boolean;
  /** The day was written after the time's zone: the mention runs to its end. */
  zoneThenDay?: { end: number };
}

/**
 * "from 2023 April 4th to April 8th", "Dec 28, 2025 to Jan 3": a date written without its year takes
 * the year of the date written before it (the next year when it would fall before that date).
 */
function withWrittenYear(text: string, pieces: Piece[]): Piece[] {
  let last: Calendar | undefined;
  return pieces.map((piece, i) => {
    if (piece.date?.kind !== 'calendar' || piece.date.options.length !== 1) return piece;
    const [day] = piece.date.options;
    if (day.year !== undefined) {
      last = day;
      return piece;
    }
    if (last?.year === undefined) {
      // "from April 3rd to April 5th 2023": the start of a range takes its end's year (the year before when it would fall after it).
      const end = pieces[i + 1];
      const [until] = end?.date?.kind === 'calendar' && end.date.options.length === 1 ? end.date.options : [];
      if (until?.year === undefined || !/^\s*(?:-|–|to|until|till|through|thru)\s*$/i.test(text.slice(piece.end, end.start))) return piece;
      const after = day.month > until.month || (day.month === until.month && day.day > until.day);
      return { ...piece, date: { kind: 'calendar', options: [{ ...day, year: until.year - (after ? 1 : 0) }] } };
    }
    const before = day.month < last.month || (day.month === last.month && day.day < last.day);
    return { ...piece, date: { kind: 'calendar', options: [{ ...day, year: last.year + (before ? 1 : 0) }] } };
  });
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, fifteen: 15, thirty: 30 };
const UNIT = '(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)';
const AMOUNT = `(\\d+|${Object.keys(NUMBER_WORDS).join('|')})`;

const monthIndex = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
const unitOf = (word: string): keyof DurationLikeObject => {
  const w = word.toLowerCase();
  if (w.startsWith('sec')) return 'seconds';
  if (w.startsWith('min')) return 'minutes';
  if (w.startsWith('h')) return 'hours';
  if (w.startsWith('d')) return 'days';
  if (w.startsWith('w')) return 'weeks';
  if (w.startsWith('mo')) return 'months';
  return 'years';
};
const amountOf = (word: string) => NUMBER_WORDS[word.toLowerCase()] ?? Number(word);

function clock(hourText: string, minute: string | undefined, second: string | undefined, meridiem: string | undefined): TimePart | undefined {
  let hour = Number(hourText);
  const m = meridiem?.toLowerCase().replaceAll('.', '');
  if (m) {
    if (hour < 1 || hour > 12) return undefined;
    if (m === 'pm' && hour !== 12) hour += 12;
    if (m === 'am' && hour === 12) hour = 0;
  }
  if (hour > 23) return undefined;
  return { hour, minute: Number(minute ?? 0), second: Number(second ?? 0) };
}

/** Finds the separate pieces: calendar dates, day words, weekdays, clock times, offsets, "now". */
function findPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  const add = (m: RegExpMatchArray, piece: Omit<Piece, 'start' | 'end' | 'text'>) => {
    const start = m.index ?? 0;
    const span = { start, end: start + m[0].length };
    if (pieces.some((p) => overlaps(p, span))) return;
    pieces.push({ ...span, text: m[0], ...piece });
  };
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\w:])/g)) {
    const [, y, mo, d, h, mi, s, offset] = m;
    if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) continue;
    add(m, {
      date: { kind: 'calendar', options: [{ year: Number(y), month: Number(mo), day: Number(d) }] },
      time: h ? { hour: Number(h), minute: Number(mi), second: Number(s ?? 0) } : undefined,
      iso: { text: m[0], hasOffset: Boolean(offset), hasTime: Boolean(h) },
    });
  }
  // "2022/08/16", "2022.08.16": a year first is always year, month, day.
  for (const m of text.matchAll(/\b(\d{4})([/.])(\d{1,2})\2(\d{1,2})\b(?![/.]\d)/g)) {
    const [year, month, day] = [Number(m[1]), Number(m[3]), Number(m[4])];
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31) add(m, { date: { kind: 'calendar', options: [{ year, month, day }] } });
  }
  // "08/16/2022", "16.08.2022", "01-01-1980": day and month in either order when both readings are dates.
  for (const m of text.matchAll(/\b(\d{1,2})([/.-])(\d{1,2})\2(\d{4})\b/g)) {
    const [a, b, year] = [Number(m[1]), Number(m[3]), Number(m[4])];
    const readings: Calendar[] = [];
    if (a <= 12 && b <= 31) readings.push({ year, month: a, day: b });
    if (b <= 12 && a <= 31 && a !== b) readings.push({ year, month: b, day: a });
    if (readings.length > 0) add(m, { date: { kind: 'calendar', options: readings } });
  }
  // "March 11, 2022", "Mar.11,2022", "2023 April 4th": the year after a comma with or without a space, or before the month.
  for (const m of text.matchAll(new RegExp(`\\b(?:(\\d{4})\\s+)?${MONTH}(?:\\s+|(?<=\\.))(\\d{1,2})(?:st|nd|rd|th)?(?:(?:\\s*,\\s*|\\s+)(\\d{4}))?(?![\\d:])`, 'gi'))) {
    const year = m[4] ?? m[1];
    add(m, { date: { kind: 'calendar', options: [{ month: monthIndex(m[2]), day: Number(m[3]), year: year ? Number(year) : undefined }] } });
  }
  for (const m of text.matchAll(new RegExp(`\\b(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:(?:\\s*,\\s*|\\s+)(\\d{4}))?\\b`, 'gi'))) {
    add(m, { date: { kind: 'calendar', options: [{ month: monthIndex(m[2]), day: Number(m[1]), year: m[3] ? Number(m[3]) : undefined }] } });
  }
  for (const m of text.matchAll(/\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(next|this|last)\s+month\b/gi)) {
    const months = { next: 1, this: 0, last: -1 }[m[2].toLowerCase() as 'next' | 'this' | 'last'];
    add(m, { date: { kind: 'month-day', day: Number(m[1]), months } });
  }
  for (const m of text.matchAll(/\b(?:the\s+)?day\s+after\s+tomorrow\b/gi)) add(m, { date: { kind: 'relative', days: 2 } });
  for (const m of text.matchAll(/\b(?:the\s+)?day\s+before\s+yesterday\b/gi)) add(m, { date: { kind: 'relative', days: -2 } });
  for (const m of text.matchAll(/\b(today|tonight|tomorrow|yesterday)\b/gi)) {
    const word = m[1].toLowerCase();
    add(m, { date: { kind: 'relative', days: word === 'tomorrow' ? 1 : word === 'yesterday' ? -1 : 0 } });
  }
  for (const m of text.matchAll(/\b(?:(next|this|coming|last|past)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/gi)) {
    const word = m[1]?.toLowerCase();
    const mode = word === 'next' ? 'next' : word === 'last' || word === 'past' ? 'last' : 'this';
    add(m, { date: { kind: 'weekday', weekday: WEEKDAYS.indexOf(m[2].toLowerCase()) + 1, mode } });
  }
  for (const m of text.matchAll(new RegExp(`\\bin\\s+${AMOUNT}\\s+${UNIT}\\b`, 'gi'))) add(m, { offset: { amount: amountOf(m[1]), unit: unitOf(m[2]) } });
  for (const m of text.matchAll(new RegExp(`\\b${AMOUNT}\\s+${UNIT}\\s+(ago|from\\s+now|later|hence)\\b`, 'gi'))) {
    add(m, { offset: { amount: amountOf(m[1]) * (m[3].toLowerCase() === 'ago' ? -1 : 1), unit: unitOf(m[2]) } });
  }
  for (const m of text.matchAll(/\b(?:right\s+)?now\b/gi)) add(m, { now: true });
  for (const m of text.matchAll(/\b(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])/gi)) {
    const time = clock(m[1], m[2], m[3], m[4]);
    if (time) add(m, { time });
  }
  // "3 in the afternoon", "8:30 in the evening", "eight at night": the part of the day says am or pm.
  for (const m of text.matchAll(new RegExp(`\\b(\\d{1,2}|${CLOCK_WORDS.join('|')})(?::(\\d{2}))?\\s+(?:o'clock\\s+)?(in the morning|in the afternoon|in the evening|at night)\\b`, 'gi'))) {
    const hour = /^\d/.test(m[1]) ? m[1] : String(CLOCK_WORDS.indexOf(m[1].toLowerCase()) + 1);
    // "two at night" is 2 am, "eleven at night" 11 pm.
    const night = /night/i.test(m[3]) && (Number(hour) < 6 || Number(hour) === 12);
    const time = clock(hour, m[2], undefined, /morning/i.test(m[3]) || night ? 'am' : 'pm');
    if (time) add(m, { time });
  }
  for (const m of text.matchAll(/(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])/g)) add(m, { time: { hour: Number(m[1]), minute: Number(m[2]), second: Number(m[3] ?? 0) } });
  for (const m of text.matchAll(/\b(noon|midday|midnight)\b/gi)) add(m, { time: { hour: m[1].toLowerCase() === 'midnight' ? 0 : 12, minute: 0, second: 0 } });
  return pieces.sort((a, b) => a.start - b.start);
}

/** The hours of a clock face in words. */
const CLOCK_WORDS = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');

/** Joins a date piece and a time piece written together ("tomorrow at 3pm", "3pm on Friday", "March 3, 10:00"). */
function mergePieces(text: string, pieces: Piece[]): Piece[] {
  const merged: Piece[] = [];
  for (const piece of pieces) {
    const last = merged.at(-1);
    const gap = last ? text.slice(last.end, piece.start) : '';
    const joinable =
      last &&
      /^\s*(?:,|at|@|on|the)?\s*(?:,|at|on|the)?\s*$/i.test(gap) &&
      !last.iso?.hasTime &&
      !last.now &&
      ((last.date && piece.time && !last.time) ||
        (last.time && piece.date && !last.date) ||
        (last.offset && piece.time && !last.time && ['days', 'weeks', 'months', 'years'].includes(last.offset.unit as string)));
    if (last && joinable) {
      merged[merged.length - 1] = {
        ...last,
        end: piece.end,
        text: text.slice(last.start, piece.end),
        date: last.date ?? piece.date,
        time: last.time ?? piece.time,
        offset: last.offset ?? piece.offset,
        iso: undefined,
        dayTrails: Boolean(last.time && piece.date),
      };
    } else {
      merged.push(piece);
    }
  }
  // "between 9:15 and 17:40 tomorrow": the day written after the second time is the first one's too.
  for (let i = merged.length - 2; i >= 0; i--) {
    const [here, next] = [merged[i], merged[i + 1]];
    if (here.time && !here.date && !here.offset && next.dayTrails && /^\s*(?:and|to|until|till|-|–)\s*$/i.test(text.slice(here.end, next.start))) merged[i] = { ...here, date: next.date };
  }
  return merged;
}

/** "3pm London time tomorrow", "21:15 São Paulo time on 2026-06-18": a time, its zone, then its day. */
function joinDayAfterZone(text: string, pieces: Piece[], zones: ZoneMention[]): Piece[] {
  const joined: Piece[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const [piece, next] = [pieces[i], pieces[i + 1]];
    const zoneEnd = attachZone(text, piece, zones).zone ? attachZone(text, piece, zones).end : undefined;
    if (zoneEnd !== undefined && next && piece.time && !piece.date && !piece.offset && next.date && !next.time && !next.iso?.hasTime && /^\s*,?\s*(?:on\s+)?$/i.test(text.slice(zoneEnd, next.start))) {
      joined.push({ ...piece, date: next.date, iso: undefined, zoneThenDay: { end: next.end } });
      i++;
    } else joined.push(piece);
  }
  return joined;
}

function attachZone(text: string, piece: Piece, zones: ZoneMention[]): { zone?: ZoneMention; end: number } {
  for (const zone of zones) {
    if (zone.start < piece.end) continue;
    const gap = text.slice(piece.end, zone.start);
    if (!/^\s*(?:\(|in\s+(?:the\s+)?)?$/i.test(gap)) continue;
    const after = /^\s*(?:\)|time\b|timezone\b|time\s+zone\b)?/i.exec(text.slice(zone.end))?.[0] ?? '';
    // "3pm in London" names the clock the time is on; "3pm London time" too.
    return { zone, end: zone.end + after.length };
  }
  return { end: piece.end };
}

function calendarOn(reference: DateTime, c: Calendar): DateTime | undefined {
  const year = c.year ?? reference.year;
  let date = DateTime.fromObject({ year, month: c.month, day: c.day }, { zone: reference.zone });
  if (!date.isValid) return undefined;
  // A month and day without a year mean their next occurrence.
  if (c.year === undefined && date < reference.startOf('day')) date = date.plus({ years: 1 });
  return date;
}

const WALL = "yyyy-MM-dd'T'HH:mm:ss";
const pad = (n: number) => String(n).padStart(2, '0');

function resolve(piece: Piece, now: DateTime): { options: DateTime[]; walls: string[] } {
  const options = resolveInstants(piece, now);
  if (!piece.time || piece.offset || piece.now) return { options, walls: options.map((o) => o.toFormat(WALL)) };
  // The wall time keeps what was written: luxon moves a time inside a DST gap forward.
  const { hour, minute, second } = piece.time;
  return { options, walls: options.map((o) => `${resolveDay(piece, now, o)}T${pad(hour)}:${pad(minute)}:${pad(second)}`) };
}

function resolveDay(piece: Piece, now: DateTime, option: DateTime): string {
  const days = resolveInstants({ ...piece, time: undefined }, now);
  return (days.find((d) => Math.abs(d.diff(option, 'hours').hours) < 27) ?? days[0] ?? now).toISODate() as string;
}

function resolveInstants(piece: Piece, now: DateTime): DateTime[] {
  const today = now.startOf('day');
  let days: DateTime[] = [];
  if (piece.date?.kind === 'calendar') days = piece.date.options.map((c) => calendarOn(now, c)).filter((d): d is DateTime => d !== undefined);
  else if (piece.date?.kind === 'relative') days = [today.plus({ days: piece.date.days })];
  else if (piece.date?.kind === 'month-day') {
    const month = today.startOf('month').plus({ months: piece.date.months });
    const day = month.set({ day: piece.date.day });
    days = day.month === month.month ? [day] : [];
  } else if (piece.date?.kind === 'weekday') {
    const { weekday, mode } = piece.date;
    const ahead = (weekday - today.weekday + 7) % 7;
    const delta = mode === 'this' ? ahead : mode === 'next' ? ahead || 7 : -((today.weekday - weekday + 7) % 7 || 7);
    days = [today.plus({ days: delta })];
  }
  if (piece.offset) {
    const moved = now.plus({ [piece.offset.unit]: piece.offset.amount });
    days = [['hours', 'minutes', 'seconds'].includes(piece.offset.unit as string) || piece.time ? moved : moved.startOf('day')];
  }
  if (piece.now) return [now];
  if (!piece.time) return days;
  const { hour, minute, second } = piece.time;
  return (days.length > 0 ? days : [today]).map((d) => d.set({ hour, minute, second, millisecond: 0 }));
}

/**
 * Dates and times in the text, resolved against the reference instant in the zone the text names
 * (or the context's zone): "tomorrow at 3pm", "next Friday", "2026-03-01", "March 3rd", "in 2 hours",
 * "9am Tokyo time". Day arithmetic follows the calendar of that zone, so DST changes keep wall times.
 */
export function extractDates(text: string, reference: Date, contextZone: string, taken: Span[] = []): DateMention[] {
  return withoutRestatedDays(text, datesOf(text, reference, contextZone, taken));
}

/** A day named relative to now. */
const RELATIVE_DAY = /^(?:(?:next|this|coming|upcoming|this coming|last)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|tonight|yesterday)$/i;
/** What may stand between a relative day and the date that restates it: "next Friday, June 30th", "this Saturday 2023.10.1", "…, which is 2023-10-07". */
const RESTATING = /^\s*(?:,|\()?\s*(?:(?:which|that) is|i\.e\.,?|namely|specifically)?\s*$/i;

/** "next Friday, June 30th 2023": a day named relative to now and then by its date is one mention of one day, the date written. */
function withoutRestatedDays(text: string, dates: DateMention[]): DateMention[] {
  const out: DateMention[] = [];
  for (const [i, date] of dates.entries()) {
    const previous = dates[i - 1];
    const restates = previous && RELATIVE_DAY.test(previous.phrase.trim()) && !date.timeOnly && RESTATING.test(text.slice(previous.end, date.start)) && !RELATIVE_DAY.test(date.phrase.trim());
    if (restates) out[out.length - 1] = { ...date, start: previous.start, text: text.slice(previous.start, date.end) };
    else out.push(date);
  }
  return out;
}

function datesOf(text: string, reference: Date, contextZone: string, taken: Span[]): DateMention[] {
  const zones = extractTimeZones(text, contextZone);
  const pieces = joinDayAfterZone(
    text,
    mergePieces(
      text,
      findPieces(text).filter((p) => !taken.some((t) => overlaps(t, p))),
    ),
    zones,
  );
  return withWrittenYear(text, pieces).flatMap((piece): DateMention[] => {
    const clock = Boolean(piece.time || piece.now || piece.iso?.hasTime || (piece.offset && ['hours', 'minutes', 'seconds'].includes(piece.offset.unit as string)));
    // "next Monday 2023.10.2 in Chicago": a day has no clock for a zone to set; the city after it is a place.
    const zoneAttached = piece.iso?.hasOffset || !clock ? { end: piece.end } : attachZone(text, piece, zones);
    const attached = piece.zoneThenDay ? { ...zoneAttached, end: piece.zoneThenDay.end } : zoneAttached;
    const zoneMention = attached.zone;
    const zone = zoneMention?.zones.length === 1 ? zoneMention.zones[0] : contextZone;
    const now = DateTime.fromJSDate(reference, { zone });
    let { options, walls } = resolve(piece, now);
    let withOffset: string | undefined;
    if (piece.iso?.hasOffset) {
      const exact = DateTime.fromISO(piece.iso.text, { setZone: true });
      if (!exact.isValid) return [];
      options = [exact];
      walls = [exact.toFormat(WALL)];
      withOffset = piece.iso.text;
    }
    if (options.length === 0) return [];
    const granularity: Granularity = piece.time || piece.now || (piece.offset && ['hours', 'minutes', 'seconds'].includes(piece.offset.unit as string)) ? 'datetime' : 'date';
    return [
      {
        start: piece.start,
        end: attached.end,
        text: text.slice(piece.start, attached.end),
        phrase: piece.text,
        granularity,
        options,
        walls,
        zone: withOffset ? (options[0].zoneName ?? zone) : zone,
        zoneExplicit: Boolean(zoneMention) || Boolean(withOffset),
        withOffset,
        zoneSpan: zoneMention ? { start: zoneMention.start, end: zoneMention.end, text: zoneMention.text } : undefined,
        ...(piece.time && !piece.date && !piece.now && !piece.offset && !piece.iso ? { timeOnly: true as const } : {}),
      },
    ];
  });
}
