import { defineTool, ErrorCode, ToolgateError } from '@toolgate/sdk';
import { convertValue, QUANTITY_NAMES, quantityOf, resolveUnit, roundTo } from './unit.catalog';

export interface ConvertArgs {
  value: number;
  from: string;
  to: string;
  significantDigits?: number;
}

export interface ConvertOutput {
  value: number;
  from: string;
  to: string;
  result: number;
  quantity: string;
  formatted: string;
}

export const convertTool = defineTool<ConvertArgs, ConvertOutput>({
  name: 'convert',
  title: 'Convert units of measurement',
  description:
    'Converts a numeric value from one physical unit of measurement to another: length/distance (mm, cm, m, km, inches, feet, yards, miles, nautical miles), ' +
    'mass/weight (g, kg, tonnes, ounces, pounds/lbs, stone), temperature (Celsius °C, Fahrenheit °F, Kelvin), volume (mL, litres, cups, pints, gallons, fl oz, tsp, tbsp), ' +
    'area (m², km², hectares, acres, square feet), speed (km/h, mph, m/s, knots), time/duration (seconds, minutes, hours, days, weeks, years), ' +
    'data size (bits, bytes, kB/MB/GB/TB, KiB/MiB/GiB), energy (joules, calories, kcal, kWh, BTU), pressure (Pa, kPa, bar, psi, atm, mmHg) and power (W, kW, hp). ' +
    'Accepts common spellings and abbreviations ("km/h", "mph", "°C", "celsius", "lbs", "sq ft"). Use it for "how many X in Y" and "convert X to Y" questions about measurements. ' +
    'Do NOT use it for money or exchange rates (use currency/convert), for time zones or calendar dates (use datetime/convert-timezone or datetime/difference), ' +
    'or for general arithmetic (use calculator/evaluate). To see which units are supported for a quantity, use units/list-units.',
  category: ['math', 'conversion'],
  tags: ['units', 'unit conversion', 'measurement', 'metric', 'imperial', 'length', 'weight', 'temperature', 'volume', 'speed', 'data size'],
  inputSchema: {
    type: 'object',
    properties: {
      value: { type: 'number', description: 'The amount to convert, in the `from` unit.' },
      from: { type: 'string', minLength: 1, maxLength: 64, description: 'Unit of the value, e.g. "km", "mph", "°C", "lbs", "GB", "kWh".' },
      to: { type: 'string', minLength: 1, maxLength: 64, description: 'Unit to convert to; must measure the same quantity as `from`.' },
      significantDigits: {
        type: 'integer',
        minimum: 1,
        maximum: 15,
        default: 10,
        description: 'Significant digits the result is rounded to (default 10).',
      },
    },
    required: ['value', 'from', 'to'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      value: { type: 'number', description: 'The input value.' },
      from: { type: 'string', description: 'Canonical symbol of the source unit.' },
      to: { type: 'string', description: 'Canonical symbol of the target unit.' },
      result: { type: 'number', description: 'The converted value, rounded to the requested significant digits.' },
      quantity: { type: 'string', enum: QUANTITY_NAMES, description: 'The physical quantity both units measure.' },
      formatted: { type: 'string', description: 'Human-readable sentence, e.g. "100 km/h = 62.13711922 mi/h".' },
    },
    required: ['value', 'from', 'to', 'result', 'quantity', 'formatted'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'How many miles is 10 km?',
      arguments: { value: 10, from: 'km', to: 'miles' },
      output: { value: 10, from: 'km', to: 'mi', result: 6.213711922, quantity: 'length', formatted: '10 km = 6.213711922 mi' },
    },
    {
      query: 'What is 100 °F in Celsius?',
      arguments: { value: 100, from: '°F', to: 'celsius', significantDigits: 4 },
      output: { value: 100, from: 'degF', to: 'degC', result: 37.78, quantity: 'temperature', formatted: '100 degF = 37.78 degC' },
    },
    {
      query: 'convert 120 km/h to mph',
      arguments: { value: 120, from: 'km/h', to: 'mph', significantDigits: 5 },
      output: { value: 120, from: 'km / h', to: 'mi/h', result: 74.565, quantity: 'speed', formatted: '120 km / h = 74.565 mi/h' },
    },
    {
      query: 'How many MiB are 2 GB?',
      arguments: { value: 2, from: 'GB', to: 'MiB' },
      output: { value: 2, from: 'GB', to: 'MiB', result: 1907.348633, quantity: 'data', formatted: '2 GB = 1907.348633 MiB' },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 2000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const digits = args.significantDigits ?? 10;
    const from = resolveUnit(args.from, temperatureHint(args.to));
    const to = resolveUnit(args.to, temperatureHint(args.from));
    if (!from) throw unknownUnit('/from', args.from);
    if (!to) throw unknownUnit('/to', args.to);

    const quantity = quantityOf(from.unit);
    const target = quantityOf(to.unit);
    if (!quantity || quantity !== target || !from.unit.equalBase(to.unit)) {
      const message = `cannot convert ${quantity ?? 'an unsupported quantity'} (${from.symbol}) to ${target ?? 'an unsupported quantity'} (${to.symbol})`;
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path: '/to', message }]);
    }
    const result = roundTo(convertValue(args.value, from.symbol, to.symbol), digits);
    return {
      value: args.value,
      from: from.symbol,
      to: to.symbol,
      result,
      quantity,
      formatted: `${args.value} ${from.symbol} = ${result} ${to.symbol}`,
    };
  },
});

/** "temperature" when the other side is a temperature, so that a bare "C" or "F" reads as degrees. */
function temperatureHint(other: string): string | undefined {
  if (/^[cf]$/i.test(other.trim())) return 'temperature';
  const resolved = resolveUnit(other);
  return resolved && quantityOf(resolved.unit) === 'temperature' ? 'temperature' : undefined;
}

function unknownUnit(path: string, unit: string): ToolgateError {
  const message = `unknown unit "${unit}" (see units/list-units for supported units)`;
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);
}
