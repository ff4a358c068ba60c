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

describeContract('units');

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
