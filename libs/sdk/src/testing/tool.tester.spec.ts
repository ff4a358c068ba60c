import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import { defineTool } from '../manifest/tool.definition';
import { toolTester } from './tool.tester';

const double = defineTool<{ n: number }, { doubled: number }>({
  name: 'double',
  title: 'Double',
  description: 'Doubles a number. Do not use it for anything else; it only doubles.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  outputSchema: { type: 'object', properties: { doubled: { type: 'number' } }, required: ['doubled'], additionalProperties: false },
  examples: [
    { query: 'double 2', arguments: { n: 2 }, output: { doubled: 4 } },
    { query: 'double 5', arguments: { n: 5 }, output: { doubled: 10 } },
  ],
  permissions: { scopes: [], risk: 'read' },
  run: ({ n }) => {
    if (!Number.isFinite(n)) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'n must be finite', [{ path: '/n', message: 'not finite' }]);
    return { doubled: n * 2 };
  },
});

describe('toolTester', () => {
  it('passes a conforming tool and runs it with output checks', async () => {
    const kit = toolTester([double]);
    expect(await kit.conformance({ minExamples: 2, descriptionPattern: /do not use/i })).toEqual({});
    expect(await kit.call('double', { n: 21 })).toEqual({ doubled: 42 });
    expect(await kit.failure('double', { n: Number.POSITIVE_INFINITY })).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS });
  });

  it('reports wrong example outputs, outputs breaking the schema, and missing guidance', async () => {
    const wrong = { ...double, examples: [{ query: 'double 2', arguments: { n: 2 }, output: { doubled: 5 } }] };
    expect(await toolTester([wrong]).conformance({ minExamples: 2, descriptionPattern: /never/ })).toEqual({
      double: [
        { path: '/examples', message: 'has 1 examples, fewer than 2' },
        { path: '/description', message: 'does not match /never/' },
      ],
    });
    expect(await toolTester([wrong]).conformance()).toEqual({ double: [{ path: '/examples/0/output', message: expect.stringContaining('{"doubled":4}') }] });
    const leaky = { ...double, run: ({ n }: { n: number }) => ({ doubled: n * 2, secret: 'x' }) };
    const leak = { path: expect.stringMatching(/^\/examples\/[01]$/), message: expect.stringContaining('/output/secret is not a known field') };
    expect(await toolTester([leaky]).conformance()).toEqual({ double: [leak, leak] });
  });

  it('says so when a call expected to fail succeeds', async () => {
    await expect(toolTester([double]).failure('double', { n: 1 })).rejects.toThrow('succeeded ({"doubled":2}) where an error was expected');
  });
});
