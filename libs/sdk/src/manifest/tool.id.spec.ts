import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import { compileToolGlob, toolGlobProblem } from './tool.glob';
import { namespaceOfPackage, parseToolRef } from './tool.id';

describe('parseToolRef', () => {
  it.each([
    ['units/convert@1.2.0', { namespace: 'units', name: 'convert', version: '1.2.0' }],
    ['units/convert', { namespace: 'units', name: 'convert', version: undefined }],
    ['convert', { namespace: undefined, name: 'convert', version: undefined }],
  ])('%s', (ref, expected) => expect(parseToolRef(ref)).toEqual(expected));

  it('rejects malformed references with TOOL_NOT_FOUND', () => {
    expect(() => parseToolRef('a/b/c')).toThrow(ToolgateError);
    expect(() => parseToolRef('a b')).toThrow(expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND }));
  });

  it('derives the namespace from a package name', () => {
    expect(namespaceOfPackage('@toolgate-plugins/units')).toBe('units');
    expect(namespaceOfPackage('weather')).toBe('weather');
  });
});

describe('tool globs', () => {
  it('match within a segment with * and across with **', () => {
    expect(compileToolGlob('units/*')('units/convert')).toBe(true);
    expect(compileToolGlob('units/*')('unitsx/convert')).toBe(false);
    expect(compileToolGlob('*/convert')('currency/convert')).toBe(true);
    expect(compileToolGlob('**')('any/thing')).toBe(true);
    expect(compileToolGlob('{units,currency}/convert')('currency/convert')).toBe(true);
  });

  it.each([
    ['units', /did you mean "units\/\*"/],
    ['units/[a-z]', /characters outside/],
    ['{units/*', /unmatched "\{"/],
    ['', /non-empty/],
  ])('reports why %j is not a tool glob', (glob, message) => {
    expect(toolGlobProblem(glob)).toMatch(message);
  });
});
