import { ErrorCode, type ToolContext, ToolgateError, type ToolManifest, validateManifest } from '@toolgate/sdk';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { tools } from './index';

const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true });
addFormats(ajv);

const ctx = (signal = new AbortController().signal): ToolContext => ({
  signal,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  span: { setAttribute() {}, addEvent() {} },
  callId: 'c1',
  idempotencyKey: 'k1',
  principal: { tenant: 't1', subject: 's1' },
});

const byName = (name: string) => tools.find((tool) => tool.name === name) as unknown as ToolManifest;

/** Runs a tool the way the executor would and checks the output against the tool's outputSchema. */
async function call(name: string, args: Record<string, unknown>, context = ctx()): Promise<Record<string, unknown>> {
  const tool = byName(name);
  const output = await tool.run?.(args, context);
  const validate = ajv.compile(tool.outputSchema);
  if (!validate(output)) throw new Error(`${name} output does not match its schema: ${ajv.errorsText(validate.errors)}`);
  return output as Record<string, unknown>;
}

async function failure(name: string, args: Record<string, unknown>, context = ctx()): Promise<ToolgateError> {
  const error = await Promise.resolve()
    .then(() => call(name, args, context))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ToolgateError);
  return error as ToolgateError;
}

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect(error.code).toBe(ErrorCode.INVALID_ARGUMENTS);
  expect(error.details.map((d) => d.path)).toContain(path);
}

function describeContract(namespace: string, options: { runExamples?: boolean } = {}): void {
  describe.each(tools.map((tool) => [tool.name, tool as unknown as ToolManifest] as const))(`${namespace}/%s contract`, (_name, tool) => {
    it('passes validateManifest with no issues', () => {
      expect(validateManifest(tool)).toEqual([]);
    });

    it('has 2-4 examples and a description that says when not to use it', () => {
      expect(tool.examples.length).toBeGreaterThanOrEqual(2);
      expect(tool.examples.length).toBeLessThanOrEqual(4);
      expect(tool.description).toMatch(/do not use/i);
    });

    if (options.runExamples !== false) {
      it('returns each example output for its arguments', async () => {
        for (const example of tool.examples) {
          const output = await call(tool.name, example.arguments);
          if (example.output !== undefined) expect(output).toEqual(example.output);
        }
      });
    }
  });
}

import table from './rates.json';

describeContract('currency');

describe('currency rate table', () => {
  it('ships about 30 currencies against EUR with a date', () => {
    expect(table.base).toBe('EUR');
    expect(table.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(table.currencies).length).toBeGreaterThanOrEqual(30);
    expect(table.currencies.EUR.perEur).toBe(1);
  });
});

describe('currency/convert', () => {
  it('converts through EUR and states the rate and its date', async () => {
    const output = await call('convert', { amount: 200, from: 'gbp', to: 'usd' });
    expect(output).toMatchObject({ from: 'GBP', to: 'USD', asOf: table.asOf, live: false });
    expect(output.rate).toBeCloseTo(table.currencies.USD.perEur / table.currencies.GBP.perEur, 6);
    expect(output.result).toBeCloseTo(200 * (output.rate as number), 1);
  });

  it('rounds to the minor unit of the target currency', async () => {
    expect((await call('convert', { amount: 10, from: 'EUR', to: 'JPY' })).result).toBe(1692);
    expect((await call('convert', { amount: 1, from: 'EUR', to: 'EUR' })).formatted).toBe('1 EUR = 1.00 EUR');
  });

  it('round-trips within a cent', async () => {
    const there = await call('convert', { amount: 1234.56, from: 'CHF', to: 'SEK' });
    const back = await call('convert', { amount: there.result, from: 'SEK', to: 'CHF' });
    expect(Math.abs((back.result as number) - 1234.56)).toBeLessThanOrEqual(0.01);
  });

  it('accepts symbols and names', async () => {
    expect(await call('convert', { amount: 1, from: '€', to: 'Swiss franc' })).toMatchObject({ from: 'EUR', to: 'CHF' });
    expect(await call('convert', { amount: 1, from: 'Indian rupee', to: ' $ ' })).toMatchObject({ from: 'INR', to: 'USD' });
  });

  it('rejects unknown currencies naming the field', async () => {
    await expectInvalid('convert', { amount: 1, from: 'XYZ', to: 'EUR' }, '/from');
    await expectInvalid('convert', { amount: 1, from: 'EUR', to: 'bitcoin' }, '/to');
  });
});

describe('currency/list-currencies', () => {
  it('lists all currencies sorted by code, or those matching a query', async () => {
    const all = (await call('list-currencies', {})) as { currencies: { code: string }[] };
    const codes = all.currencies.map((c) => c.code);
    expect(codes).toEqual([...codes].sort());
    expect(codes).toHaveLength(Object.keys(table.currencies).length);
    const krona = (await call('list-currencies', { query: 'KRON' })) as { currencies: { code: string }[] };
    expect(krona.currencies.map((c) => c.code)).toEqual(['DKK', 'ISK', 'NOK', 'SEK']);
  });
});
