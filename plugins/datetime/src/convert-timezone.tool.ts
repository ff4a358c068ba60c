import { defineTool } from '@toolgate/sdk';
import { describeInstant, INSTANT_SCHEMA, type InstantInfo, parseDateTime, requireZone, TIME_ZONE_DESCRIPTION } from './time.kit';

export interface ConvertTimezoneArgs {
  dateTime: string;
  fromTimeZone?: string;
  toTimeZone: string;
}

export interface ConvertTimezoneOutput {
  source: InstantInfo;
  target: InstantInfo;
  differenceHours: number;
}

export const convertTimezoneTool = defineTool<ConvertTimezoneArgs, ConvertTimezoneOutput>({
  name: 'convert-timezone',
  title: 'Convert a time between time zones',
  description:
    'Converts a given date and time from one time zone to another, respecting daylight saving time, and tells how many hours the target zone is ahead ' +
    'of (or behind) the source at that instant: "what is 3pm London time in Tokyo", "convert 2025-03-10 09:00 New York to Berlin time", ' +
    '"when is 18:00 CET in California". The time may be ISO 8601, "YYYY-MM-DD HH:mm", an RFC 2822 date or a short phrase such as "tomorrow 9am". ' +
    'Use IANA zone names (Europe/London, Asia/Tokyo, America/Los_Angeles); unknown zones are rejected. ' +
    'Do NOT use it for the current time somewhere (use datetime/now), for relative phrases that need a fixed reference time (use datetime/resolve-date first), ' +
    'or for the duration between two dates (use datetime/difference).',
  category: ['time'],
  tags: ['time zone', 'timezone conversion', 'convert time', 'world clock', 'dst', 'utc offset', 'meeting time'],
  inputSchema: {
    type: 'object',
    properties: {
      dateTime: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'The date and time to convert, e.g. "2025-03-10T15:00", "2025-03-10 15:00" or "tomorrow 3pm"; an explicit offset (Z, +01:00) wins over fromTimeZone.',
      },
      fromTimeZone: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC', description: `Zone the dateTime is written in: ${TIME_ZONE_DESCRIPTION}. Default UTC.` },
      toTimeZone: { type: 'string', minLength: 1, maxLength: 64, description: `Zone to express the time in: ${TIME_ZONE_DESCRIPTION}.` },
    },
    required: ['dateTime', 'toTimeZone'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      source: { ...INSTANT_SCHEMA, description: 'The instant in the source zone.' },
      target: { ...INSTANT_SCHEMA, description: 'The same instant in the target zone.' },
      differenceHours: { type: 'number', description: 'Hours the target zone is ahead of the source zone at that instant (negative when behind).' },
    },
    required: ['source', 'target', 'differenceHours'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'What time is 3pm London time on 10 March 2025 in Tokyo?',
      arguments: { dateTime: '2025-03-10T15:00', fromTimeZone: 'Europe/London', toTimeZone: 'Asia/Tokyo' },
      output: {
        source: {
          iso: '2025-03-10T15:00:00.000+00:00',
          date: '2025-03-10',
          time: '15:00:00',
          weekday: 'Monday',
          timeZone: 'Europe/London',
          offset: '+00:00',
          epochMs: 1741618800000,
        },
        target: {
          iso: '2025-03-11T00:00:00.000+09:00',
          date: '2025-03-11',
          time: '00:00:00',
          weekday: 'Tuesday',
          timeZone: 'Asia/Tokyo',
          offset: '+09:00',
          epochMs: 1741618800000,
        },
        differenceHours: 9,
      },
    },
    {
      query: 'Convert 2025-07-01 09:00 New York time to Berlin time',
      arguments: { dateTime: '2025-07-01 09:00', fromTimeZone: 'America/New_York', toTimeZone: 'Europe/Berlin' },
      output: {
        source: {
          iso: '2025-07-01T09:00:00.000-04:00',
          date: '2025-07-01',
          time: '09:00:00',
          weekday: 'Tuesday',
          timeZone: 'America/New_York',
          offset: '-04:00',
          epochMs: 1751374800000,
        },
        target: {
          iso: '2025-07-01T15:00:00.000+02:00',
          date: '2025-07-01',
          time: '15:00:00',
          weekday: 'Tuesday',
          timeZone: 'Europe/Berlin',
          offset: '+02:00',
          epochMs: 1751374800000,
        },
        differenceHours: 6,
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const from = requireZone(args.fromTimeZone, '/fromTimeZone');
    const to = requireZone(args.toTimeZone, '/toTimeZone');
    const source = parseDateTime(args.dateTime, from, '/dateTime');
    const target = source.setZone(to);
    return {
      source: describeInstant(source),
      target: describeInstant(target),
      differenceHours: (target.offset - source.offset) / 60,
    };
  },
});
