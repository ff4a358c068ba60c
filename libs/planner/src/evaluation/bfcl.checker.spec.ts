import { checkCall, checkCalls, matchesAcceptable, standardize } from './bfcl.checker';
import type { BfclFunction, BfclGoldCall } from './bfcl.reader';

const weather: BfclFunction = {
  name: 'weather.get',
  description: 'Current weather of a city',
  parameters: {
    type: 'dict',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer' },
      scale: { type: 'float' },
      units: { type: 'string', enum: ['metric', 'imperial'] },
      tags: { type: 'array', items: { type: 'string' } },
      filter: { type: 'dict', properties: { field: { type: 'string' }, min: { type: 'integer' } } },
    },
    required: ['city'],
  },
};
const area: BfclFunction = { name: 'area', description: 'Area of a circle', parameters: { type: 'dict', properties: { radius: { type: 'float' } }, required: ['radius'] } };

describe('BFCL AST checker', () => {
  const gold = { name: 'weather.get', arguments: { city: ['New York', 'NYC'], days: [3, ''], units: ['metric', ''] } };

  it('normalizes strings the way BFCL does', () => {
    expect(standardize('San Francisco, CA.')).toBe('sanfranciscoca');
    expect(standardize("it's")).toBe('it"s');
    expect(matchesAcceptable('new-york', 'New York')).toBe(true);
    expect(matchesAcceptable('Newark', 'New York')).toBe(false);
    // Numbers by value: 7 is an acceptable 7.0; lists element by element, in order.
    expect(matchesAcceptable(7, 7.0)).toBe(true);
    expect(matchesAcceptable([3, 5], [3, 5])).toBe(true);
    expect(matchesAcceptable([5, 3], [3, 5])).toBe(false);
    // Dicts: each key among the acceptable ones, a missing key only where "" is acceptable.
    expect(matchesAcceptable({ field: 'Age', min: 25 }, { field: ['age'], min: [25], op: ['', '>'] })).toBe(true);
    expect(matchesAcceptable({ field: 'age' }, { field: ['age'], min: [25] })).toBe(false);
    expect(matchesAcceptable({ field: 'age', extra: 1 }, { field: ['age'] })).toBe(false);
  });

  it('accepts a call with every required parameter and acceptable values; optional ones with "" may be left out', () => {
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC' } }, gold)).toBeNull();
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'new york', days: 3, units: 'Metric' } }, gold)).toBeNull();
  });

  it('names the first problem of a call by kind and BFCL type', () => {
    expect(checkCall(weather, { name: 'area', arguments: {} }, gold)).toMatchObject({ kind: 'wrong_function', got: 'area' });
    expect(checkCall(weather, { name: 'weather.get', arguments: { days: 3 } }, gold)).toMatchObject({ kind: 'missing_required', param: 'city', type: 'string' });
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC', zip: '10001' } }, gold)).toMatchObject({ kind: 'unexpected_param', param: 'zip', type: 'unknown' });
    // In the schema but not in the answer: also unexpected (the answer lists every parameter it accepts).
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC', scale: 1 } }, gold)).toMatchObject({ kind: 'unexpected_param', param: 'scale', type: 'float' });
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC', days: 2.5 } }, gold)).toMatchObject({ kind: 'wrong_type', param: 'days', type: 'integer' });
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC', days: '3' } }, gold)).toMatchObject({ kind: 'wrong_type', param: 'days' });
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'Boston' } }, gold)).toMatchObject({ kind: 'wrong_value', param: 'city', expected: ['New York', 'NYC'], got: 'Boston' });
    const strict = { name: 'weather.get', arguments: { city: ['NYC'], units: ['imperial'] } };
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC' } }, strict)).toMatchObject({ kind: 'missing_optional', param: 'units', type: 'string' });
    // An integer where a float is expected is fine; array items are type-checked.
    expect(checkCall(area, { name: 'area', arguments: { radius: 5 } }, { name: 'area', arguments: { radius: [5.0] } })).toBeNull();
    expect(checkCall(weather, { name: 'weather.get', arguments: { city: 'NYC', tags: ['a', 1] } }, { name: 'weather.get', arguments: { city: ['NYC'], tags: [['a', '1']] } })).toMatchObject({
      kind: 'wrong_type',
      param: 'tags',
      type: 'array',
    });
  });

  it('matches parallel calls in any order, each expected call by a distinct predicted one', () => {
    const functions = [weather, area];
    const parallel: BfclGoldCall[] = [
      { name: 'weather.get', arguments: { city: ['Paris'] } },
      { name: 'weather.get', arguments: { city: ['Rome'] } },
      { name: 'area', arguments: { radius: [2.0] } },
    ];
    const calls = [
      { name: 'area', arguments: { radius: 2 } },
      { name: 'weather.get', arguments: { city: 'rome' } },
      { name: 'weather.get', arguments: { city: 'Paris' } },
    ];
    expect(checkCalls(functions, calls, parallel)).toEqual({ ok: true });
    // Merging two cities into one call is the wrong count, not a right answer.
    expect(checkCalls(functions, calls.slice(0, 2), parallel)).toEqual({ ok: false, kind: 'wrong_count', expected: 3, got: 2 });
    // The same city twice: one expected call has no distinct match, and is explained against its own function.
    const twice = [calls[0], calls[2], calls[2]];
    expect(checkCalls(functions, twice, parallel)).toMatchObject({ ok: false, kind: 'wrong_calls', failures: [{ kind: 'wrong_value', param: 'city', expected: ['Rome'] }] });
    const wrongFn = [calls[1], calls[2], { name: 'weather.get', arguments: { city: 'Oslo' } }];
    expect(checkCalls(functions, wrongFn, parallel)).toMatchObject({ ok: false, failures: [{ kind: 'wrong_function', function: 'area' }] });
  });

  it('scores the empty cases: no call for an expected call is the wrong count; no call for none expected is right', () => {
    expect(checkCalls([area], [], [{ name: 'area', arguments: { radius: [1] } }])).toEqual({ ok: false, kind: 'wrong_count', expected: 1, got: 0 });
    expect(checkCalls([area], [], [])).toEqual({ ok: true });
  });
});
