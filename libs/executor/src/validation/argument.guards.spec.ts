import { collectBindings, forbiddenKeys, readPointer, resolveArguments, schemaAdmits } from './argument.guards';

describe('argument guards', () => {
  it('reads JSON pointers with own-property reads only, unescaping ~1 and ~0', () => {
    const doc = { a: { 'b/c': [10, { 'd~e': 'deep' }] } };
    expect(readPointer(doc, '/a/b~1c/1/d~0e')).toEqual({ found: true, value: 'deep' });
    expect(readPointer(doc, '')).toEqual({ found: true, value: doc });
    // Inherited properties are not part of an output.
    expect(readPointer(doc, '/a/toString')).toEqual({ found: false, missing: 'toString' });
    expect(readPointer(doc, '/a/b~1c/constructor')).toEqual({ found: false, missing: 'constructor' });
    expect(readPointer(doc, '/a/b~1c/01')).toEqual({ found: false, missing: '01' });
    expect(readPointer(doc, '/a/b~1c/2')).toEqual({ found: false, missing: '2' });
  });

  it('finds prototype keys at any depth, in objects and arrays', () => {
    const value = JSON.parse('{"ok": 1, "list": [{"__proto__": {}}], "deep": {"prototype": 1, "inner": {"constructor": 2}}}');
    expect(forbiddenKeys(value, '/arguments').map((p) => p.path)).toEqual(['/arguments/list/0/__proto__', '/arguments/deep/prototype', '/arguments/deep/inner/constructor']);
  });

  it('collects bindings at any depth with their position', () => {
    const bindings = collectBindings({ a: { $ref: 'steps.s1.output/x' }, b: [{ c: { $ref: 'steps.s2.output./y/0' } }], d: { $ref: 'nonsense' }, e: { $ref: 'x', other: 1 } });
    expect(bindings).toEqual([
      { path: '/a', ref: 'steps.s1.output/x', target: { step: 's1', pointer: '/x' } },
      { path: '/b/0/c', ref: 'steps.s2.output./y/0', target: { step: 's2', pointer: '/y/0' } },
      { path: '/d', ref: 'nonsense', target: null },
    ]);
  });

  it('resolves bindings into fresh copies and reports what does not resolve', () => {
    const output = { rows: [{ q: 'Q1' }], secret: { nested: true } };
    const done = (id: string) => (id === 's1' ? { done: true as const, output } : { done: false as const });
    const resolved = resolveArguments({ first: { $ref: 'steps.s1.output/rows/0/q' }, all: { $ref: 'steps.s1.output/secret' } }, done, '/arguments');
    expect(resolved).toEqual({ ok: true, value: { first: 'Q1', all: { nested: true } } });
    if (resolved.ok) expect(resolved.value.all).not.toBe(output.secret);
    expect(resolveArguments({ x: { $ref: 'steps.s1.output/rows/5' }, y: { $ref: 'steps.s9.output/a' } }, done, '/arguments')).toEqual({
      ok: false,
      problems: [
        { path: '/arguments/x', message: 'binding "steps.s1.output/rows/5" does not resolve: the output of step s1 has no "5"' },
        { path: '/arguments/y', message: `binding "steps.s9.output/a" does not name a completed step's output` },
      ],
    });
  });

  it('refuses a bound value that carries prototype keys', () => {
    const output = JSON.parse('{"payload": {"__proto__": {"admin": true}}}');
    const resolved = resolveArguments({ p: { $ref: 'steps.s1.output/payload' } }, () => ({ done: true, output }), '/arguments');
    expect(resolved).toEqual({ ok: false, problems: [{ path: '/arguments/p/__proto__', message: expect.stringContaining('not allowed') }] });
  });

  it('tells which pointers an output schema rules out', () => {
    const schema = {
      type: 'object',
      properties: { label: { type: 'string' }, rows: { type: 'array', items: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } }, free: { type: 'object' } },
      additionalProperties: false,
    };
    expect(schemaAdmits(schema, '/rows/3/q')).toBe(true);
    expect(schemaAdmits(schema, '/free/anything/below')).toBe(true);
    expect(schemaAdmits(schema, '/missing')).toBe(false);
    expect(schemaAdmits(schema, '/label/length')).toBe(false);
    expect(schemaAdmits(schema, '/rows/first')).toBe(false);
    expect(schemaAdmits(schema, '/rows/0/other')).toBe(false);
  });
});
