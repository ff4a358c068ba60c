import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import * as chrono from 'chrono-node';
import { DateTime, Info } from 'luxon';

/** One instant as the datetime tools report it. */
export interface InstantInfo {
  iso: string;
  date: string;
  time: string;
  weekday: string;
  timeZone: string;
  offset: string;
  epochMs: number;
}

export const INSTANT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    iso: { type: 'string', format: 'date-time', description: 'ISO 8601 timestamp with the zone offset, e.g. 2025-03-10T15:00:00.000+01:00.' },
    date: { type: 'string', format: 'date', description: 'Calendar date in that zone (YYYY-MM-DD).' },
    time: { type: 'string', description: 'Wall-clock time in that zone (HH:mm:ss).' },
    weekday: { type: 'string', description: 'Day of the week in English, e.g. Monday.' },
    timeZone: { type: 'string', description: 'IANA time zone name, e.g. Europe/Paris.' },
    offset: { type: 'string', description: 'UTC offset in that zone at that instant, e.g. +01:00.' },
    epochMs: { type: 'integer', description: 'Milliseconds since 1970-01-01T00:00:00Z.' },
  },
  required: ['iso', 'date', 'time', 'weekday', 'timeZone', 'offset', 'epochMs'],
  additionalProperties: false,
};

export const TIME_ZONE_DESCRIPTION = 'IANA time zone name such as "Europe/Paris", "America/New_York", "Asia/Tokyo" or "UTC"';

export function invalid(path: string, message: string, cause?: unknown): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }], { cause });
}

/** The canonical name of an IANA zone (or UTC / fixed offset like "UTC+3"), or INVALID_ARGUMENTS on `path`. */
export function requireZone(name: string | undefined, path: string): string {
  if (name === undefined) return 'UTC';
  const zone = Info.normalizeZone(name.trim());
  if (!zone?.isValid) throw invalid(path, `unknown time zone "${name}" (use an IANA name such as Europe/Paris or America/New_York)`);
  return zone.name;
}

export function describeInstant(dt: DateTime): InstantInfo {
  const english = dt.setLocale('en-US');
  return {
    iso: dt.toISO() ?? '',
    date: dt.toISODate() ?? '',
    time: dt.toFormat('HH:mm:ss'),
    weekday: english.toFormat('cccc'),
    timeZone: dt.zoneName ?? 'UTC',
    offset: dt.toFormat('ZZ'),
    epochMs: dt.toMillis(),
  };
}

export interface NaturalDate {
  matchedText: string;
  start: DateTime;
  end?: DateTime;
  timeSpecified: boolean;
}

/** Finds the first date or time expression in `text` ("next Monday at 3pm", "in 2 weeks") relative to `reference`, in `zone`. */
export function parseNatural(text: string, reference: DateTime, zone: string, preferFuture: boolean): NaturalDate | undefined {
  const local = reference.setZone(zone);
  const [result] = chrono.parse(text, { instant: local.toJSDate(), timezone: local.offset }, { forwardDate: preferFuture });
  if (!result) return undefined;
  return {
    matchedText: result.text,
    start: componentsToDateTime(result.start, zone),
    end: result.end ? componentsToDateTime(result.end, zone) : undefined,
    timeSpecified: result.start.isCertain('hour'),
  };
}

function componentsToDateTime(components: chrono.ParsedComponents, zone: string): DateTime {
  // An explicit offset ("3pm PST", "in 3 hours") fixes the instant; otherwise the wall-clock fields are
  // read in the requested zone, so that a date across a DST change keeps its local time.
  if (components.isCertain('timezoneOffset')) return DateTime.fromJSDate(components.date(), { zone });
  const field = (name: chrono.Component) => components.get(name) ?? 0;
  return DateTime.fromObject(
    {
      year: field('year'),
      month: field('month'),
      day: field('day'),
      hour: field('hour'),
      minute: field('minute'),
      second: field('second'),
      millisecond: field('millisecond'),
    },
    { zone },
  );
}

/**
 * Reads a date-time written as ISO 8601 ("2025-03-10T15:00", "2025-03-10"), SQL ("2025-03-10 15:00"),
 * RFC 2822 / HTTP dates, "now", or a natural phrase ("tomorrow 9am") relative to now.
 * A text without an offset is read in `zone`.
 */
export function parseDateTime(text: string, zone: string, path: string): DateTime {
  const trimmed = text.trim();
  if (/^now$/i.test(trimmed)) return DateTime.now().setZone(zone);
  const formats = [DateTime.fromISO, DateTime.fromSQL, DateTime.fromRFC2822, DateTime.fromHTTP].map((parse) => (value: string) => parse.call(DateTime, value, { zone }));
  for (const parse of formats) {
    const dt = parse(trimmed);
    if (dt.isValid) return dt.setZone(zone);
  }
  const natural = parseNatural(trimmed, DateTime.now(), zone, false);
  if (natural) return natural.start;
  throw invalid(path, `cannot read "${text}" as a date or time (use ISO 8601 such as 2025-03-10T15:00, or a phrase such as "tomorrow 9am")`);
}
