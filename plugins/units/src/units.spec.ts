import { ErrorCode } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { call, failure, conformance } = toolTester(tools);

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

it('every units tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

describe('units/convert', () => {
  it.each([
    [1, 'mi', 'km', 1.609344],
    [0, '°C', '°F', 32],
    [300, 'K', 'celsius', 26.85],
    [30, 'C', 'F', 86],
    [2.2, 'lbs', 'kg', 0.99790321],
    [1, 'kcal', 'kJ', 4.184],
    [10, 'knots', 'km/h', 18.52],
    [1, 'acre', 'sq ft', 43560],
    [1, 'hectare', 'm2', 10000],
    [1, 'gallon', 'L', 3.785411784],
    [1, 'atm', 'psi', 14.69594878],
    [1, 'day', 'hours', 24],
    [1, 'KB', 'bits', 8000],
    [100, 'Mbit', 'MB', 12.5],
  ])('%d %s -> %s', async (value, from, to, expected) => {
    const output = await call('convert', { value, from, to, significantDigits: 10 });
    expect(output.result).toBeCloseTo(expected, 6);
  });

  it('rejects an unknown unit naming the field', async () => {
    await expectInvalid('convert', { value: 1, from: 'furlongz', to: 'm' }, '/from');
    await expectInvalid('convert', { value: 1, from: 'm', to: 'parsecs-ish' }, '/to');
  });

  it('rejects units of different quantities', async () => {
    await expectInvalid('convert', { value: 1, from: 'kg', to: 'm' }, '/to');
  });

  it('rejects a unit string that carries a value', async () => {
    await expectInvalid('convert', { value: 1, from: '5 m', to: 'cm' }, '/from');
  });
});

describe('units/list-units', () => {
  it('lists every quantity, each with its units', async () => {
    const output = (await call('list-units', {})) as { quantities: { quantity: string; units: unknown[] }[] };
    expect(output.quantities.map((q) => q.quantity)).toEqual(expect.arrayContaining(['length', 'mass', 'temperature', 'volume', 'area', 'speed', 'time', 'data', 'energy', 'pressure']));
    for (const q of output.quantities) expect(q.units.length).toBeGreaterThan(2);
  });

  it('every advertised symbol and alias converts to its base unit', async () => {
    const output = (await call('list-units', {})) as {
      quantities: { quantity: string; baseUnit: string; units: { symbol: string; aliases: string[] }[] }[];
    };
    for (const q of output.quantities) {
      for (const unit of q.units) {
        for (const spelling of [unit.symbol, ...unit.aliases]) {
          const converted = await call('convert', { value: 1, from: spelling, to: q.baseUnit });
          expect([spelling, converted.quantity]).toEqual([spelling, q.quantity]);
        }
      }
    }
  });

  it('rejects an unknown quantity', async () => {
    await expectInvalid('list-units', { quantity: 'luminosity' }, '/quantity');
  });
});
