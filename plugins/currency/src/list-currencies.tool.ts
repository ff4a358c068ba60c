import { defineTool } from '@toolgate/sdk';
import { AS_OF, BASE, CURRENCIES, type Currency, SOURCE } from './rate.table';

export interface ListCurrenciesArgs {
  query?: string;
}

export interface ListCurrenciesOutput {
  base: string;
  asOf: string;
  live: false;
  source: string;
  currencies: Currency[];
}

export const listCurrenciesTool = defineTool<ListCurrenciesArgs, ListCurrenciesOutput>({
  name: 'list-currencies',
  title: 'List supported currencies and rates',
  description:
    `Lists the currencies that currency/convert supports with their ISO 4217 code, English name, minor units and the static rate per 1 EUR dated ${AS_OF} ` +
    '(a snapshot shipped with the plugin, not live). Optionally filters by code or name ("dollar", "krona"). Use it to answer "which currencies do you ' +
    'support", "what is the EUR to USD rate in your table", or to find a currency code. Do NOT use it to convert an amount (use currency/convert) or ' +
    'for units of measurement (use units/list-units).',
  category: ['finance'],
  tags: ['currency', 'currencies', 'exchange rate table', 'iso 4217', 'currency codes', 'forex'],
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 40, description: 'Only currencies whose code or name contains this text (case-insensitive).' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      base: { type: 'string', description: 'Base currency of the rates (EUR).' },
      asOf: { type: 'string', format: 'date', description: 'Date of the rate table.' },
      live: { type: 'boolean', const: false, description: 'Always false: the rates are a static snapshot.' },
      source: { type: 'string', description: 'Where the table comes from.' },
      currencies: {
        type: 'array',
        description: 'Matching currencies, by code.',
        items: {
          type: 'object',
          properties: {
            code: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' },
            name: { type: 'string', description: 'English name.' },
            perEur: { type: 'number', description: 'Units of this currency per 1 EUR.' },
            minorUnits: { type: 'integer', description: 'Digits after the decimal point the currency is quoted with.' },
          },
          required: ['code', 'name', 'perEur', 'minorUnits'],
          additionalProperties: false,
        },
      },
    },
    required: ['base', 'asOf', 'live', 'source', 'currencies'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Which dollar currencies can you convert?',
      arguments: { query: 'dollar' },
      output: {
        base: BASE,
        asOf: AS_OF,
        live: false,
        source: SOURCE,
        currencies: [
          { code: 'AUD', name: 'Australian dollar', perEur: 1.7948, minorUnits: 2 },
          { code: 'CAD', name: 'Canadian dollar', perEur: 1.6027, minorUnits: 2 },
          { code: 'HKD', name: 'Hong Kong dollar', perEur: 9.2001, minorUnits: 2 },
          { code: 'NZD', name: 'New Zealand dollar', perEur: 1.929, minorUnits: 2 },
          { code: 'SGD', name: 'Singapore dollar', perEur: 1.4941, minorUnits: 2 },
          { code: 'USD', name: 'US dollar', perEur: 1.172, minorUnits: 2 },
        ],
      },
    },
    { query: 'What currencies do you support?', arguments: {} },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const needle = args.query?.trim().toLowerCase();
    const currencies = CURRENCIES.filter((c) => !needle || c.code.toLowerCase().includes(needle) || c.name.toLowerCase().includes(needle))
      .map((c) => ({ ...c }))
      .sort((a, b) => a.code.localeCompare(b.code));
    return { base: BASE, asOf: AS_OF, live: false, source: SOURCE, currencies };
  },
});
