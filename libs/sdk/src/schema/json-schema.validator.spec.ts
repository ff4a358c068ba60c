import { checkAgainstSchema, compileSchema } from './json-schema.validator';

const schema = () => ({
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 }, when: { type: 'string', format: 'date' }, 'a/b': { type: 'integer' } },
  required: ['city'],
  additionalProperties: false,
});

describe('the JSON Schema validator', () => {
  it('reports every problem as a JSON pointer under the prefix; an unknown field names itself', () => {
    expect(checkAgainstSchema(schema(), { city: 'Oslo', when: '2024-02-29' })).toEqual([]);
    expect(checkAgainstSchema(schema(), { city: '', when: '2023-02-29', 'a/b': 1.5, extra: true }, '/arguments')).toEqual([
      { path: '/arguments/extra', message: 'is not a known field' },
      { path: '/arguments/city', message: 'must NOT have fewer than 1 characters' },
      { path: '/arguments/when', message: 'must match format "date"' },
      { path: '/arguments/a~1b', message: 'must be integer' },
    ]);
    expect(checkAgainstSchema(schema(), {})).toEqual([{ path: '', message: "must have required property 'city'" }]);
  });

  it('compiles a schema once: the same object or an equal copy gets the same check', () => {
    const original = schema();
    expect(compileSchema(original)).toBe(compileSchema(original));
    expect(compileSchema(schema())).toBe(compileSchema(original));
    expect(compileSchema({ ...original, required: [] })).not.toBe(compileSchema(original));
  });

  it('is strict: an unknown keyword is not a valid schema', () => {
    expect(() => compileSchema({ type: 'object', colour: 'red' })).toThrow(/unknown keyword/);
  });

  it('lets two schemas reuse one $id without colliding', () => {
    const a = { $id: 'https://example.com/args', type: 'object', properties: { x: { type: 'string' } } };
    const b = { $id: 'https://example.com/args', type: 'object', properties: { x: { type: 'number' } } };
    expect(checkAgainstSchema(a, { x: 1 })).toEqual([{ path: '/x', message: 'must be string' }]);
    expect(checkAgainstSchema(b, { x: 1 })).toEqual([]);
  });
});
