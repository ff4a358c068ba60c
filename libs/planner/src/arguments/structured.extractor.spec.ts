import { extractAssignments, extractExpressions, extractJson } from './structured.extractor';

describe('extractJson', () => {
  it('reads balanced JSON objects and arrays, quotes and brackets inside strings included', () => {
    const [object] = extractJson('POST {"name": "Ada {1}", "tags": ["a]"]} now');
    expect(object.value).toEqual({ name: 'Ada {1}', tags: ['a]'] });
    expect(extractJson('{not json} and [1, 2]').map((j) => j.value)).toEqual([[1, 2]]);
  });
});

describe('extractExpressions', () => {
  it('reads formulas and stops before the prose after them', () => {
    expect(extractExpressions('Calculate sqrt(16) + 2^10').map((e) => e.value)).toEqual(['sqrt(16) + 2^10']);
    expect(extractExpressions('integrate f(x) = 4x^3 from 0 to 1').map((e) => e.value)).toEqual(['4x^3']);
    expect(extractExpressions('plot g(t)=cos(t)').map((e) => e.value)).toEqual(['cos(t)']);
    expect(extractExpressions('compute price * qty * 1.2 where price = 19.99').map((e) => e.value)).toEqual(['price * qty * 1.2']);
    expect(extractExpressions('What is (12.5 - 2) / 3?').map((e) => e.value)).toEqual(['(12.5 - 2) / 3']);
  });

  it('finds a formula written after prose that began with a number', () => {
    expect(extractExpressions('the area under the curve from x=1 to x=5 for the function f(x)=x^2').map((e) => e.value)).toEqual(['x^2']);
    expect(extractExpressions('the definite integral from 0 to 3.1416 of sin(x)').map((e) => e.value)).toEqual(['sin(x)']);
    expect(extractExpressions('the integral of exp(-x^2) from -2 to 2').map((e) => e.value)).toEqual(['exp(-x^2)']);
  });

  it('does not read a bare number or a date as a formula', () => {
    expect(extractExpressions('it is 42 on 2026-03-01')).toEqual([]);
  });
});

describe('extractAssignments', () => {
  it('reads named numbers', () => {
    expect(extractAssignments('with x = 3, y is -1 and rate: 0.5').map((a) => [a.name, a.value])).toEqual([
      ['x', 3],
      ['y', -1],
      ['rate', 0.5],
    ]);
  });
});
