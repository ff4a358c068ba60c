import { all, create } from 'mathjs';

/**
 * Functions an untrusted expression must not reach: the ones the mathjs security guide names
 * (they parse or define code), `config` (the instance is shared by every call: one caller's number
 * mode would become the next caller's answer), plus the few that allocate unbounded memory from a
 * short input and the random ones, so that the same expression always gives the same answer.
 */
const DISABLED = [
  'import',
  'config',
  'createUnit',
  'reviver',
  'evaluate',
  'parse',
  'compile',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'rationalize',
  'derivative',
  'resolve',
  'range',
  'zeros',
  'ones',
  'identity',
  'resize',
  'kron',
  'random',
  'randomInt',
  'pickRandom',
] as const;

const math = create(all);
const evaluateExpression = math.evaluate;

math.import(
  Object.fromEntries(
    DISABLED.map((name) => [
      name,
      () => {
        throw new Error(`Function ${name} is disabled`);
      },
    ]),
  ),
  { override: true },
);

export const DISABLED_FUNCTIONS: readonly string[] = DISABLED;

export function evaluate(expression: string, scope: Map<string, number>): unknown {
  const value: unknown = evaluateExpression(expression, scope);
  // Several statements ("a = 2; a^2") yield a ResultSet whose last entry is the answer.
  if (math.typeOf(value) === 'ResultSet') {
    const entries = (value as { entries: unknown[] }).entries;
    return entries[entries.length - 1];
  }
  return value;
}

export const typeOf = (value: unknown): string => math.typeOf(value);

export const format = (value: unknown, precision: number): string => math.format(value, { precision, lowerExp: -9, upperExp: 21 });
