import { defineTool, ErrorCode, ToolgateError } from '@toolgate/sdk';
import { DISABLED_FUNCTIONS, evaluate, format, typeOf } from './math.sandbox';

export interface EvaluateArgs {
  expression: string;
  variables?: Record<string, number>;
  precision?: number;
}

export interface EvaluateOutput {
  expression: string;
  result: number | string | boolean;
  resultType: string;
  formatted: string;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const evaluateTool = defineTool<EvaluateArgs, EvaluateOutput>({
  name: 'evaluate',
  title: 'Evaluate a math expression',
  description:
    'Calculates the value of a mathematical expression: arithmetic (+ - * / ^ %, parentheses), percentages of numbers written as arithmetic (0.2 * 50), ' +
    'powers and roots (sqrt, cbrt, nthRoot), logarithms and exponentials (log, log10, log2, exp), trigonometry (sin, cos, tan, asin... with rad or deg), ' +
    'rounding (round, floor, ceil), factorials and combinatorics (5!, combinations, permutations), statistics over lists (mean, median, std, variance, sum, min, max), ' +
    'matrices (det, inv, transpose, multiply), complex numbers, constants (pi, e) and named variables passed in `variables` (e.g. price=19.99, qty=3). ' +
    'Several statements can be separated by ";" and the last one is the answer. Use it whenever a question needs exact arithmetic instead of mental math. ' +
    'Do NOT use it to convert between units of measurement (use units/convert), to convert money between currencies (use currency/convert), ' +
    'for date or time arithmetic (use datetime/difference or datetime/resolve-date), or to aggregate a table of rows (use table/group-by). ' +
    `Runs in a locked-down evaluator: defining units, parsing or compiling nested code and random numbers are disabled (${DISABLED_FUNCTIONS.join(', ')}).`,
  category: ['math'],
  tags: ['calculator', 'calculate', 'arithmetic', 'math expression', 'compute', 'formula', 'algebra', 'trigonometry', 'statistics', 'percentage'],
  inputSchema: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        minLength: 1,
        maxLength: 2000,
        description: 'Expression in mathjs syntax, e.g. "sqrt(16) + 2^10", "sin(30 deg)", "mean([2, 4, 9])", "price * qty * 1.2".',
      },
      variables: {
        type: 'object',
        additionalProperties: { type: 'number' },
        maxProperties: 100,
        description: 'Numeric variables the expression refers to by name, e.g. {"price": 19.99, "qty": 3}.',
      },
      precision: {
        type: 'integer',
        minimum: 1,
        maximum: 64,
        default: 14,
        description: 'Significant digits of the `formatted` text (default 14).',
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      expression: { type: 'string', description: 'The evaluated expression.' },
      result: {
        type: ['number', 'string', 'boolean'],
        description: 'The value: a number for a finite real result, a boolean for comparisons, otherwise its text (matrix, complex, unit, Infinity).',
      },
      resultType: {
        type: 'string',
        description: 'mathjs type of the value: number, BigNumber, Fraction, Complex, Unit, DenseMatrix, boolean, string, function...',
      },
      formatted: { type: 'string', description: 'The value as text with the requested precision.' },
    },
    required: ['expression', 'result', 'resultType', 'formatted'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'What is the square root of 16 plus 2 to the power of 10?',
      arguments: { expression: 'sqrt(16) + 2^10' },
      output: { expression: 'sqrt(16) + 2^10', result: 1028, resultType: 'number', formatted: '1028' },
    },
    {
      query: 'Total price for 3 items at 19.99 with 20% VAT',
      arguments: { expression: 'price * qty * (1 + vat)', variables: { price: 19.99, qty: 3, vat: 0.2 } },
      output: { expression: 'price * qty * (1 + vat)', result: 71.964, resultType: 'number', formatted: '71.964' },
    },
    {
      query: 'Compute the determinant of the matrix [[2, 1], [7, 4]]',
      arguments: { expression: 'det([2, 1; 7, 4])' },
      output: { expression: 'det([2, 1; 7, 4])', result: 1, resultType: 'number', formatted: '1' },
    },
    {
      query: 'sin of 30 degrees, rounded to 4 digits',
      arguments: { expression: 'round(sin(30 deg), 4)' },
      output: { expression: 'round(sin(30 deg), 4)', result: 0.5, resultType: 'number', formatted: '0.5' },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 2000, maxConcurrency: 16, retries: 0, idempotent: true },
  run(args) {
    const scope = new Map<string, number>();
    for (const [name, value] of Object.entries(args.variables ?? {})) {
      if (!VARIABLE_NAME.test(name)) {
        throw invalid(`/variables/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, `"${name}" is not a valid variable name (letters, digits, _)`);
      }
      scope.set(name, value);
    }

    let value: unknown;
    try {
      value = evaluate(args.expression, scope);
    } catch (error) {
      throw invalid('/expression', `cannot evaluate "${args.expression}": ${(error as Error).message}`, error);
    }
    if (value === undefined) throw invalid('/expression', 'the expression produced no value');

    const resultType = typeOf(value);
    const formatted = format(value, args.precision ?? 14);
    return { expression: args.expression, result: toResult(value, formatted), resultType, formatted };
  },
});

function toResult(value: unknown, formatted: string): number | string | boolean {
  // 15 significant digits drop binary noise such as 0.1 + 0.2 = 0.30000000000000004.
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(15)) : String(value);
  if (typeof value === 'boolean') return value;
  return formatted;
}

function invalid(path: string, message: string, cause?: unknown): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }], { cause });
}
