import { defineTool } from '@toolgate/sdk';
import { AS_OF, BASE, CURRENCIES, requireCurrency, SOURCE } from './rate.table';

export interface ConvertArgs {
  amount: number;
  from: string;
  to: string;
}

export interface ConvertOutput {
  amount: number;
  from: string;
  to: string;
  rate: number;
  result: number;
  formatted: string;
  asOf: string;
  base: string;
  live: false;
  source: string;
}

const codes = CURRENCIES.map((currency) => currency.code).join(', ');

export const convertTool = defineTool<ConvertArgs, ConvertOutput>({
  name: 'convert',
  title: 'Convert money between currencies',
  description:
    'Converts an amount of money from one currency to another ("100 USD in EUR", "how much is 5000 yen in pounds", "convert £250 to Swiss francs") ' +
    `using a STATIC exchange-rate table shipped with the plugin, dated ${AS_OF} (euro reference rates); it is NOT a live or real-time quote, and the ` +
    'output always states the rate used and its asOf date. Accepts ISO 4217 codes, symbols and names ($, €, £, ¥, dollar, euro, pound, yen, rupee...). ' +
    `Supported: ${codes}. Use it for approximate price comparisons, budgets and travel money questions. ` +
    "Do NOT use it when the user needs today's market rate or historical rates for other dates (this table cannot give them), for cryptocurrencies, " +
    'for physical units (use units/convert) or for plain arithmetic on amounts already in one currency (use calculator/evaluate). ' +
    'To see the supported currencies and raw rates, use currency/list-currencies.',
  category: ['finance', 'conversion'],
  tags: ['currency', 'exchange rate', 'money', 'forex', 'fx', 'convert money', 'usd', 'eur', 'gbp', 'jpy'],
  inputSchema: {
    type: 'object',
    properties: {
      amount: { type: 'number', description: 'Amount of money in the `from` currency.' },
      from: { type: 'string', minLength: 1, maxLength: 40, description: 'Source currency: ISO 4217 code (USD), symbol ($) or name (dollar).' },
      to: { type: 'string', minLength: 1, maxLength: 40, description: 'Target currency: ISO 4217 code (EUR), symbol (€) or name (euro).' },
    },
    required: ['amount', 'from', 'to'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      amount: { type: 'number', description: 'The input amount.' },
      from: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the source currency.' },
      to: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the target currency.' },
      rate: { type: 'number', description: 'Units of `to` per one unit of `from` (8 significant digits).' },
      result: { type: 'number', description: 'Converted amount, rounded to the minor unit of the target currency.' },
      formatted: { type: 'string', description: 'Human-readable sentence, e.g. "100 USD = 85.32 EUR".' },
      asOf: { type: 'string', format: 'date', description: 'Date of the rate table.' },
      base: { type: 'string', description: 'Base currency of the table (EUR).' },
      live: { type: 'boolean', const: false, description: 'Always false: the rates are a static snapshot, not a live quote.' },
      source: { type: 'string', description: 'Where the table comes from.' },
    },
    required: ['amount', 'from', 'to', 'rate', 'result', 'formatted', 'asOf', 'base', 'live', 'source'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'How much is 100 US dollars in euros?',
      arguments: { amount: 100, from: 'USD', to: 'EUR' },
      output: {
        amount: 100,
        from: 'USD',
        to: 'EUR',
        rate: 0.85324232,
        result: 85.32,
        formatted: '100 USD = 85.32 EUR',
        asOf: AS_OF,
        base: BASE,
        live: false,
        source: SOURCE,
      },
    },
    {
      query: 'convert 5000 yen to pounds',
      arguments: { amount: 5000, from: 'yen', to: '£' },
      output: {
        amount: 5000,
        from: 'JPY',
        to: 'GBP',
        rate: 0.0050570432,
        result: 25.29,
        formatted: '5000 JPY = 25.29 GBP',
        asOf: AS_OF,
        base: BASE,
        live: false,
        source: SOURCE,
      },
    },
    { query: 'What is 250 Swiss francs in Canadian dollars?', arguments: { amount: 250, from: 'CHF', to: 'CAD' } },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 32, retries: 0, idempotent: true },
  run(args) {
    const from = requireCurrency(args.from, '/from');
    const to = requireCurrency(args.to, '/to');
    const exact = to.perEur / from.perEur;
    const result = round(args.amount * exact, to.minorUnits);
    return {
      amount: args.amount,
      from: from.code,
      to: to.code,
      rate: Number(exact.toPrecision(8)),
      result,
      formatted: `${args.amount} ${from.code} = ${result.toFixed(to.minorUnits)} ${to.code}`,
      asOf: AS_OF,
      base: BASE,
      live: false,
      source: SOURCE,
    };
  },
});

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round((value + Number.EPSILON * Math.sign(value)) * factor) / factor || 0;
}
