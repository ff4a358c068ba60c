import { defineTool, ErrorCode, ToolgateError } from '@toolgate/sdk';
import { QUANTITIES, QUANTITY_NAMES } from './unit.catalog';

export interface ListUnitsArgs {
  quantity?: string;
}

export interface ListUnitsOutput {
  quantities: { quantity: string; baseUnit: string; units: { symbol: string; name: string; aliases: string[] }[] }[];
}

export const listUnitsTool = defineTool<ListUnitsArgs, ListUnitsOutput>({
  name: 'list-units',
  title: 'List supported units',
  description:
    'Lists the units of measurement that units/convert understands, grouped by physical quantity (length, mass, temperature, volume, area, speed, time, data, energy, pressure, power), ' +
    'with each unit\'s canonical symbol, readable name and accepted aliases (e.g. "mph", "lbs", "°C"). Use it to answer "which units can you convert" or to find the right spelling ' +
    'of a unit before converting. Do NOT use it to convert a value (use units/convert) or to list currencies (use currency/list-currencies).',
  category: ['math', 'conversion'],
  tags: ['units', 'measurement', 'supported units', 'unit list', 'aliases'],
  inputSchema: {
    type: 'object',
    properties: {
      quantity: { type: 'string', enum: QUANTITY_NAMES, description: 'Only list units of this quantity; omit to list all quantities.' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      quantities: {
        type: 'array',
        description: 'One entry per physical quantity.',
        items: {
          type: 'object',
          properties: {
            quantity: { type: 'string', description: 'Quantity name, e.g. "length".' },
            baseUnit: { type: 'string', description: 'SI base unit of the quantity.' },
            units: {
              type: 'array',
              description: 'Units of this quantity.',
              items: {
                type: 'object',
                properties: {
                  symbol: { type: 'string', description: 'Canonical symbol to pass to units/convert.' },
                  name: { type: 'string', description: 'Readable name.' },
                  aliases: { type: 'array', items: { type: 'string' }, description: 'Other accepted spellings.' },
                },
                required: ['symbol', 'name', 'aliases'],
                additionalProperties: false,
              },
            },
          },
          required: ['quantity', 'baseUnit', 'units'],
          additionalProperties: false,
        },
      },
    },
    required: ['quantities'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Which speed units can you convert between?',
      arguments: { quantity: 'speed' },
      output: {
        quantities: [
          {
            quantity: 'speed',
            baseUnit: 'm/s',
            units: QUANTITIES.speed.units.map((unit) => ({ ...unit, aliases: [...unit.aliases] })),
          },
        ],
      },
    },
    { query: 'What units do you support?', arguments: {} },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    if (args.quantity !== undefined && !QUANTITY_NAMES.includes(args.quantity)) {
      const message = `unknown quantity "${args.quantity}" (one of ${QUANTITY_NAMES.join(', ')})`;
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path: '/quantity', message }]);
    }
    const names = args.quantity ? [args.quantity] : QUANTITY_NAMES;
    return {
      quantities: names.map((quantity) => ({
        quantity,
        baseUnit: QUANTITIES[quantity].base,
        units: QUANTITIES[quantity].units.map((unit) => ({ symbol: unit.symbol, name: unit.name, aliases: [...unit.aliases] })),
      })),
    };
  },
});
