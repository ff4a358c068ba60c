import { defineTool } from '@toolgate/sdk';
import type { DurationUnit } from 'luxon';
import { invalid, parseDateTime, requireZone, TIME_ZONE_DESCRIPTION } from './time.kit';

const UNITS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;
type Unit = (typeof UNITS)[number];

export interface DifferenceArgs {
  from: string;
  to: string;
  units?: Unit[];
  timeZone?: string;
}

export interface DifferenceOutput {
  from: string;
  to: string;
  values: Partial<Record<Unit, number>>;
  milliseconds: number;
  humanized: string;
}

export const differenceTool = defineTool<DifferenceArgs, DifferenceOutput>({
  name: 'difference',
  title: 'Time between two dates',
  description:
    'Computes how much time lies between two dates or date-times, in the units asked for: "how many days until Christmas", "how many weeks between ' +
    '2025-01-15 and 2025-06-01", "how old is someone born on 1990-05-17 in years and months", "hours between two timestamps". Several units give a ' +
    'calendar-aware breakdown (e.g. years + months + days); a single unit gives a fractional total. The result is negative when `to` is before `from`. ' +
    'Dates may be ISO 8601, "YYYY-MM-DD HH:mm", "now" or a short phrase such as "next Friday". ' +
    'Do NOT use it to add an offset to a date such as "in 3 weeks" (use datetime/resolve-date), to convert between zones (use datetime/convert-timezone), ' +
    'or for the current time (use datetime/now).',
  category: ['time'],
  tags: ['date difference', 'duration', 'days between', 'days until', 'countdown', 'age', 'elapsed time', 'calendar'],
  inputSchema: {
    type: 'object',
    properties: {
      from: { type: 'string', minLength: 1, maxLength: 200, description: 'Start date or date-time, e.g. "2025-01-15", "2025-01-15T08:00:00Z" or "now".' },
      to: { type: 'string', minLength: 1, maxLength: 200, description: 'End date or date-time.' },
      units: {
        type: 'array',
        items: { type: 'string', enum: [...UNITS] },
        minItems: 1,
        maxItems: UNITS.length,
        uniqueItems: true,
        default: ['days'],
        description: 'Units of the result, largest first for a breakdown, e.g. ["years", "months", "days"]; default ["days"].',
      },
      timeZone: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        default: 'UTC',
        description: `Zone for dates written without an offset (matters for day counts across DST): ${TIME_ZONE_DESCRIPTION}. Default UTC.`,
      },
    },
    required: ['from', 'to'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      from: { type: 'string', format: 'date-time', description: 'Start instant as read.' },
      to: { type: 'string', format: 'date-time', description: 'End instant as read.' },
      values: {
        type: 'object',
        properties: Object.fromEntries(UNITS.map((unit) => [unit, { type: 'number', description: `Number of ${unit}.` }])),
        additionalProperties: false,
        description: 'The difference in the requested units (the last unit may be fractional).',
      },
      milliseconds: { type: 'number', description: 'Exact difference in milliseconds.' },
      humanized: { type: 'string', description: 'The breakdown in words, e.g. "1 year, 2 months, 3 days".' },
    },
    required: ['from', 'to', 'values', 'milliseconds', 'humanized'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'How many days are there between 15 January 2025 and 1 June 2025?',
      arguments: { from: '2025-01-15', to: '2025-06-01' },
      output: {
        from: '2025-01-15T00:00:00.000Z',
        to: '2025-06-01T00:00:00.000Z',
        values: { days: 137 },
        milliseconds: 11836800000,
        humanized: '137 days',
      },
    },
    {
      query: 'How old is someone born on 17 May 1990 on 1 March 2025, in years, months and days?',
      arguments: { from: '1990-05-17', to: '2025-03-01', units: ['years', 'months', 'days'] },
      output: {
        from: '1990-05-17T00:00:00.000Z',
        to: '2025-03-01T00:00:00.000Z',
        values: { years: 34, months: 9, days: 12 },
        milliseconds: 1097884800000,
        humanized: '34 years, 9 months, 12 days',
      },
    },
    {
      query: 'How many hours between 08:15 and 17:45 on 2025-03-10?',
      arguments: { from: '2025-03-10T08:15:00', to: '2025-03-10T17:45:00', units: ['hours'] },
      output: {
        from: '2025-03-10T08:15:00.000Z',
        to: '2025-03-10T17:45:00.000Z',
        values: { hours: 9.5 },
        milliseconds: 34200000,
        humanized: '9.5 hours',
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const zone = requireZone(args.timeZone, '/timeZone');
    const from = parseDateTime(args.from, zone, '/from');
    const to = parseDateTime(args.to, zone, '/to');
    const units = args.units ?? ['days'];
    const unknown = units.findIndex((unit) => !UNITS.includes(unit));
    if (unknown >= 0) throw invalid(`/units/${unknown}`, `unknown unit "${units[unknown]}" (one of ${UNITS.join(', ')})`);
    // Luxon wants largest-first units for a calendar breakdown.
    const ordered = UNITS.filter((unit) => units.includes(unit));
    const duration = to.diff(from, ordered as DurationUnit[]);
    const values = Object.fromEntries(ordered.map((unit) => [unit, round(duration.get(unit))])) as Partial<Record<Unit, number>>;
    return {
      from: from.toISO() ?? '',
      to: to.toISO() ?? '',
      values,
      milliseconds: to.toMillis() - from.toMillis(),
      humanized: ordered.map((unit) => `${values[unit]} ${values[unit] === 1 ? unit.slice(0, -1) : unit}`).join(', '),
    };
  },
});

const round = (x: number): number => Math.round(x * 1e6) / 1e6 || 0;
