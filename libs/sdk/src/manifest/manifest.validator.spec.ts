import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import { descriptorHash } from './descriptor.hash';
import { assertValidManifest, validateManifest } from './manifest.validator';
import { defineTool } from './tool.definition';

const valid = () =>
  defineTool<{ text: string }, { length: number }>({
    name: 'length',
    title: 'Text length',
    description: 'Counts the characters of a text. Use it for lengths; not for word counts.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'the text' } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] },
    examples: [{ query: 'how long is "abc"', arguments: { text: 'abc' }, output: { length: 3 } }],
    permissions: { scopes: [], risk: 'read' },
    run: ({ text }) => ({ length: text.length }),
  });

const pathsOf = (manifest: unknown) => validateManifest(manifest).map((i) => i.path);

describe('validateManifest', () => {
  it('accepts a complete manifest and fills defaults', () => {
    const manifest = valid();
    expect(validateManifest(manifest)).toEqual([]);
    expect(manifest.limits).toEqual({ timeoutMs: 10_000, maxConcurrency: 8, retries: 0, idempotent: false });
    expect(manifest.execution).toBe('server');
  });

  it('names each malformed field', () => {
    const bad = { ...valid(), name: 'Bad Name', description: 'short', permissions: { scopes: [], risk: 'nuclear' }, extra: 1 };
    expect(pathsOf(bad)).toEqual(expect.arrayContaining(['/name', '/description', '/permissions/risk', '/extra']));
  });

  it('rejects schema keywords and formats outside the subset, and non-object roots', () => {
    const bad = { ...valid(), inputSchema: { type: 'object', properties: { when: { type: 'string', format: 'color' } }, if: { required: ['x'] } }, outputSchema: { type: 'string' } };
    const issues = validateManifest(bad);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['/inputSchema/properties/when/format', '/inputSchema/if', '/outputSchema/type']));
  });

  it('rejects remote $refs', () => {
    const bad = { ...valid(), inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } };
    expect(pathsOf(bad)).toEqual(['/inputSchema/properties/a/$ref']);
  });

  it('rejects examples whose arguments do not satisfy the input schema', () => {
    const bad = { ...valid(), examples: [{ query: 'q', arguments: { text: 42 } }] };
    expect(pathsOf(bad)).toEqual(['/examples/0/arguments/text']);
  });

  it('requires run for server tools but not for client tools', () => {
    const { run: _run, ...noRun } = valid();
    expect(pathsOf(noRun)).toEqual(['/run']);
    expect(validateManifest({ ...noRun, execution: 'client' })).toEqual([]);
  });

  it('refuses a schema past its bounds before walking it: 50,000 properties, or nesting thousands of levels deep', () => {
    const wide = { ...valid(), examples: [], inputSchema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`p${i}`, { type: 'string' }])) } };
    expect(validateManifest(wide)).toEqual([{ path: '/inputSchema', message: expect.stringContaining('more than 5000 keys') }]);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5_000; i++) deep = { type: 'object', properties: { x: deep } };
    expect(validateManifest({ ...valid(), examples: [], outputSchema: deep })).toEqual([{ path: '/outputSchema', message: expect.stringContaining('deeper than 32 levels') }]);
  });

  it('bounds limits.maxOutputBytes', () => {
    expect(pathsOf({ ...valid(), limits: { ...valid().limits, maxOutputBytes: 0 } })).toEqual(['/limits/maxOutputBytes']);
    expect(validateManifest({ ...valid(), limits: { ...valid().limits, maxOutputBytes: 4096 } })).toEqual([]);
  });

  it('takes companions as distinct tool ids, at most 16', () => {
    expect(validateManifest({ ...valid(), companions: ['geo/lookup', 'notify/send-sms'] })).toEqual([]);
    expect(pathsOf({ ...valid(), companions: ['lookup'] })).toEqual(['/companions/0']);
    expect(pathsOf({ ...valid(), companions: ['geo/lookup', 'geo/lookup'] })).toEqual(['/companions']);
    expect(pathsOf({ ...valid(), companions: Array.from({ length: 17 }, (_, i) => `geo/t${i}`) })).toEqual(['/companions']);
    expect(pathsOf({ ...valid(), companions: 'geo/lookup' })).toEqual(['/companions']);
  });

  it('assertValidManifest throws PLUGIN_INVALID with the field list', () => {
    try {
      assertValidManifest({ ...valid(), limits: { timeoutMs: 0, maxConcurrency: 1, retries: 0, idempotent: true } }, '/tools/3');
      throw new Error('expected a throw');
    } catch (error) {
      expect(ToolgateError.is(error, ErrorCode.PLUGIN_INVALID)).toBe(true);
      expect((error as ToolgateError).details.map((d) => d.path)).toEqual(['/tools/3/limits/timeoutMs']);
    }
  });
});

describe('descriptorHash', () => {
  it('ignores key order and code, and changes with the descriptor', () => {
    const a = valid();
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as typeof a;
    expect(descriptorHash(reordered)).toBe(descriptorHash(a));
    expect(descriptorHash({ ...a, run: () => ({ length: 0 }) })).toBe(descriptorHash(a));
    expect(descriptorHash({ ...a, description: `${a.description} More.` })).not.toBe(descriptorHash(a));
  });
});
