import { defineTool } from '@toolgate/sdk';
import { DateTime } from 'luxon';
import { describeInstant, INSTANT_SCHEMA, type InstantInfo, invalid, parseNatural, requireZone, TIME_ZONE_DESCRIPTION } from './time.kit';

export interface ResolveDateArgs {
  text: string;
  referenceTime?: string;
  timeZone?: string;
  preferFuture?: boolean;
}

export interface ResolveDateOutput {
  text: string;
  matchedText: string;
  referenceTime: string;
  timeSpecified: boolean;
  start: InstantInfo;
  end?: InstantInfo;
}

export const resolveDateTool = defineTool<ResolveDateArgs, ResolveDateOutput>({
  name: 'resolve-date',
  title: 'Resolve a natural-language date',
  description:
    'Turns a date or time written in everyday English into an exact timestamp: "next Monday at 3pm", "tomorrow morning", "in 2 weeks", "3 days ago", ' +
    '"March 30 at 9:00", "end of month", "this Friday", "from Jan 3 to Jan 7" (ranges give start and end). It resolves relative to a reference time ' +
    '(default: now) in an IANA time zone (default UTC), so "tomorrow 9am" means 9am in that zone. Use it before scheduling, filling a date field, or ' +
    'computing a deadline. Do NOT use it for the current time (use datetime/now), for converting a known time between zones (use datetime/convert-timezone) ' +
    'or for the length of time between two dates (use datetime/difference). Fails with INVALID_ARGUMENTS when the text contains no date.',
  category: ['time'],
  tags: ['date parsing', 'natural language date', 'relative date', 'schedule', 'deadline', 'next week', 'tomorrow', 'calendar'],
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 500, description: 'Text containing the date or time, e.g. "next Monday at 3pm".' },
      referenceTime: {
        type: 'string',
        format: 'date-time',
        description: 'The "now" that relative phrases are resolved against, ISO 8601 with offset (e.g. 2025-03-05T10:00:00Z); default: the current time.',
      },
      timeZone: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC', description: `Zone the phrase is meant in: ${TIME_ZONE_DESCRIPTION}. Default UTC.` },
      preferFuture: {
        type: 'boolean',
        default: true,
        description: 'Read ambiguous dates ("Friday", "March 3") as the next occurrence rather than the most recent one (default true).',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The input text.' },
      matchedText: { type: 'string', description: 'The part of the text that was read as a date.' },
      referenceTime: { type: 'string', format: 'date-time', description: 'The reference instant used, in the requested zone.' },
      timeSpecified: { type: 'boolean', description: 'Whether the text gave a time of day; when false the time is implied (noon or the reference time).' },
      start: { ...INSTANT_SCHEMA, description: 'The resolved date-time (start of a range).' },
      end: { ...INSTANT_SCHEMA, description: 'End of the range, when the text names one.' },
    },
    required: ['text', 'matchedText', 'referenceTime', 'timeSpecified', 'start'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Book the meeting for next Monday at 3pm Paris time',
      arguments: { text: 'next Monday at 3pm', referenceTime: '2025-03-05T10:00:00Z', timeZone: 'Europe/Paris' },
      output: {
        text: 'next Monday at 3pm',
        matchedText: 'next Monday at 3pm',
        referenceTime: '2025-03-05T11:00:00.000+01:00',
        timeSpecified: true,
        start: {
          iso: '2025-03-10T15:00:00.000+01:00',
          date: '2025-03-10',
          time: '15:00:00',
          weekday: 'Monday',
          timeZone: 'Europe/Paris',
          offset: '+01:00',
          epochMs: 1741615200000,
        },
      },
    },
    {
      query: 'What date is it in 2 weeks?',
      arguments: { text: 'in 2 weeks', referenceTime: '2025-03-20T09:30:00-04:00', timeZone: 'America/New_York' },
      output: {
        text: 'in 2 weeks',
        matchedText: 'in 2 weeks',
        referenceTime: '2025-03-20T09:30:00.000-04:00',
        timeSpecified: false,
        start: {
          iso: '2025-04-03T09:30:00.000-04:00',
          date: '2025-04-03',
          time: '09:30:00',
          weekday: 'Thursday',
          timeZone: 'America/New_York',
          offset: '-04:00',
          epochMs: 1743687000000,
        },
      },
    },
    { query: 'When is tomorrow at 9am in Tokyo?', arguments: { text: 'tomorrow at 9am', timeZone: 'Asia/Tokyo' } },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 2000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const zone = requireZone(args.timeZone, '/timeZone');
    const reference = args.referenceTime === undefined ? DateTime.now() : DateTime.fromISO(args.referenceTime, { setZone: true });
    if (!reference.isValid) throw invalid('/referenceTime', `cannot read "${args.referenceTime}" as an ISO 8601 date-time`);
    const resolved = parseNatural(args.text, reference, zone, args.preferFuture ?? true);
    if (!resolved) throw invalid('/text', `no date or time found in "${args.text}"`);
    if (!resolved.start.isValid || (resolved.end && !resolved.end.isValid)) throw invalid('/text', `"${resolved.matchedText}" is not a valid date`);
    return {
      text: args.text,
      matchedText: resolved.matchedText,
      referenceTime: reference.setZone(zone).toISO() ?? '',
      timeSpecified: resolved.timeSpecified,
      start: describeInstant(resolved.start),
      ...(resolved.end ? { end: describeInstant(resolved.end) } : {}),
    };
  },
});
