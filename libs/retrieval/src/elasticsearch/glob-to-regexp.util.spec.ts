import { compileToolGlob, toolGlobProblem } from '@toolgate/sdk';
import { globToRegexp } from './glob-to-regexp.util';

// The Lucene syntax the translation emits (classes, groups, `|`, `?`, `*`, escaped punctuation) means
// the same in a JavaScript RegExp once anchored, as Lucene anchors it; the conformance suite runs it
// on a real Elasticsearch.
const asRegExp = (glob: string) => new RegExp(`^(?:${globToRegexp(glob)})$`);

const namespaces = ['units', 'unit', 'files', 'file.io', 'mail', 'my-tools', 'a_b', '.hidden', 'x', '0', 'b', 'c'];
const names = ['convert', 'converter', 'read', 'write', 'delete', 'send', 'a', 'b', 'c', '1', '2', '10', 'bc', 'x.y', 'x-y', 'x_y', '.dot', 'ab', 'cd', 'ce'];
const ids = [...namespaces.flatMap((ns) => names.map((name) => `${ns}/${name}`)), 'a/b/c', 'units/convert/v2', 'a/x/y/b'];

const globs = [
  '**',
  'units/*',
  'units/**',
  '*/convert',
  '**/convert',
  'units/convert',
  'units/conv*',
  'units/*ert',
  'units/c*t',
  'unit?/*',
  '?/?',
  'files/{read,write}',
  '{files,mail}/*',
  '{files,mail}/{read,send}',
  'files/{read,}',
  'files/{,read}',
  'a/{b,c{d,e}}',
  'x/{a..c}',
  'x/{3..1}',
  'x/{c..a}',
  '0/{0..2}',
  'x/{b}',
  'file.io/*',
  'my-tools/x-y',
  'a_b/x_y',
  '*/.dot',
  '*/*',
  'un**',
  'un**/*',
  'units/***',
  'a/**/b',
  'a/**',
  'a/b/**',
  'units/convert/**',
  '{**,x}/c',
  'files/{*,x}y',
  '*.io/*',
  'units/c?nvert',
];

describe('globToRegexp', () => {
  it.each(globs)('matches the same ids as compileToolGlob for %s', (glob) => {
    expect(toolGlobProblem(glob)).toBeNull();
    const matches = compileToolGlob(glob);
    const expected = ids.filter((id) => matches(id));
    const re = asRegExp(glob);
    expect(ids.filter((id) => re.test(id))).toEqual(expected);
  });

  it('escapes punctuation but never letters or digits (a Lucene `\\d` is a class)', () => {
    expect(globToRegexp('file.io/x-y_z')).toBe('file\\.io\\/x\\-y\\_z');
  });

  it('uses an optional group for an empty alternative, which Lucene rejects as `(a|)`', () => {
    expect(globToRegexp('files/{read,}')).toBe('files\\/(read)?');
  });

  it('keeps `*` within a segment and lets a whole-segment `**` match zero or more segments', () => {
    expect(globToRegexp('units/*')).toBe('units\\/[^/]*');
    expect(globToRegexp('**')).toBe('.*');
    expect(globToRegexp('**/convert')).toBe('(.*/)?convert');
    expect(globToRegexp('units/**')).toBe('units(/.*)?');
  });
});
