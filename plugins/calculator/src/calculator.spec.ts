import { ErrorCode } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { call, failure, conformance } = toolTester(tools);

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

it('every calculator tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

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

  it('leaves no state behind for the next caller: attempts to reconfigure the shared evaluator are refused', async () => {
    const attacks = [
      'config({number: "BigNumber", precision: 1})',
      'config({number: "Fraction"})',
      'config({epsilon: 1})',
      'f = config; f({precision: 2})',
      'import({add: subtract}, {override: true})',
      'g(x) = config(x); g({number: "BigNumber", precision: 1})',
    ];
    const plain = ['123456*2', '1/3', '0.1 + 0.2 == 0.3', '2^64'];
    const before = await Promise.all(plain.map((expression) => call('evaluate', { expression })));
    for (const expression of attacks) await expect(failure('evaluate', { expression })).resolves.toMatchObject({ message: expect.stringMatching(/disabled/) });
    // Another tenant's plain arithmetic, after every attempt: the same answers.
    expect(await Promise.all(plain.map((expression) => call('evaluate', { expression })))).toEqual(before);
    expect(before[0].result).toBe(246912);
  });

  it('rejects variable names that are not identifiers', async () => {
    await expectInvalid('evaluate', { expression: '1', variables: { 'a/b': 1 } }, '/variables/a~1b');
  });
});
