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

describeContract('calculator');

describe('calculator/evaluate', () => {
  it.each([
    ['0.1 + 0.2', 0.3],
    ['2^10', 1024],
    ['10!', 3628800],
    ['mean([2, 4, 9])', 5],
    ['log(1000, 10)', 3],
    ['a = 3; b = 4; sqrt(a^2 + b^2)', 5],
    ['15 % 4', 3],
  ])('%s = %d', async (expression, expected) => {
    const output = await call('evaluate', { expression });
    expect(output.result).toBe(expected);
    expect(output.resultType).toBe('number');
  });

  it('returns text for non-real results', async () => {
    expect(await call('evaluate', { expression: 'sqrt(-4)' })).toMatchObject({ result: '2i', resultType: 'Complex' });
    expect(await call('evaluate', { expression: '[1, 2] * 2' })).toMatchObject({ result: '[2, 4]', resultType: 'DenseMatrix' });
    expect(await call('evaluate', { expression: '1 / 0' })).toMatchObject({ result: 'Infinity', resultType: 'number' });
    expect(await call('evaluate', { expression: '3 > 2' })).toMatchObject({ result: true, resultType: 'boolean' });
  });

  it('honours precision in the formatted text', async () => {
    const output = await call('evaluate', { expression: 'pi', precision: 5 });
    expect(output.formatted).toBe('3.1416');
    expect(output.result).toBeCloseTo(Math.PI, 14);
  });

  it('reports syntax errors and undefined symbols on /expression', async () => {
    await expectInvalid('evaluate', { expression: '2 +' }, '/expression');
    await expectInvalid('evaluate', { expression: 'x * 2' }, '/expression');
  });

  it.each(['import({x: 1}, {override: true})', 'createUnit("foo")', 'evaluate("1+1")', 'parse("1")', 'simplify("x+x")', 'derivative("x^2", "x")', '1:1e9', 'zeros(1e5, 1e5)', 'random()'])(
    'blocks %s',
    async (expression) => {
      const error = await failure('evaluate', { expression });
      expect(error.code).toBe(ErrorCode.INVALID_ARGUMENTS);
      expect(error.message).toMatch(/disabled/);
    },
  );

  it('keeps evaluations isolated from each other', async () => {
    await call('evaluate', { expression: 'leak = 42' });
    await expectInvalid('evaluate', { expression: 'leak + 1' }, '/expression');
  });

  it('rejects variable names that are not identifiers', async () => {
    await expectInvalid('evaluate', { expression: '1', variables: { 'a/b': 1 } }, '/variables/a~1b');
  });
});
