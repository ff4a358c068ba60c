import { defineTool } from '@toolgate/sdk';
import { DateTime } from 'luxon';
import { describeInstant, INSTANT_SCHEMA, type InstantInfo, requireZone, TIME_ZONE_DESCRIPTION } from './time.kit';

export interface NowArgs {
  timeZone?: string;
}

export const nowTool = defineTool<NowArgs, InstantInfo>({
  name: 'now',
  title: 'Current date and time',
  description:
    'Returns the current date, time, day of the week and UTC offset in a given IANA time zone (default UTC), e.g. "what time is it in Tokyo", ' +
    '"what is today\'s date", "what day is it in New York right now". Use it when the answer depends on the present moment. ' +
    'Do NOT use it to convert a specific given time between zones (use datetime/convert-timezone), to resolve phrases like "next Friday" or ' +
    '"in 3 days" (use datetime/resolve-date), or to count the time between two dates (use datetime/difference). Unknown time zones are rejected.',
  category: ['time'],
  tags: ['current time', 'now', 'today', 'date', 'clock', 'time zone', 'timezone', 'day of week'],
  inputSchema: {
    type: 'object',
    properties: {
      timeZone: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC', description: `${TIME_ZONE_DESCRIPTION}; default UTC.` },
    },
    additionalProperties: false,
  },
  outputSchema: { ...INSTANT_SCHEMA, description: 'The current instant in the requested zone.' },
  examples: [
    { query: 'What time is it in Tokyo right now?', arguments: { timeZone: 'Asia/Tokyo' } },
    { query: "What is today's date?", arguments: {} },
    { query: 'What day of the week is it in New York?', arguments: { timeZone: 'America/New_York' } },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    return describeInstant(DateTime.now().setZone(requireZone(args.timeZone, '/timeZone')));
  },
});
