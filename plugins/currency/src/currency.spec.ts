import { ErrorCode } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { call, failure, conformance } = toolTester(tools);

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

import table from './rates.json';

it('every currency tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

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
