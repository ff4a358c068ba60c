import type { McpCallResult } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { outputOf } from './mcp.tool-invoker';

const TOOL = 'everything/echo';

const failure = (answer: McpCallResult): ToolgateError => {
  try {
    outputOf(TOOL, answer);
  } catch (error) {
    expect(ToolgateError.is(error, ErrorCode.TOOL_FAILED)).toBe(true);
    return error as ToolgateError;
  }
  throw new Error('expected TOOL_FAILED');
};

describe('outputOf', () => {
  it("makes a result flagged isError TOOL_FAILED with the server's text", () => {
    const error = failure({
      result: {
        isError: true,
        content: [
          { type: 'text', text: 'file not found' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'text', text: 'path: /x' },
        ],
      },
      structured: false,
    });
    expect(error.message).toBe(`${TOOL} reported an error: file not found\npath: /x`);
  });

  it('says so when an error has no text, also for a tool with an outputSchema', () => {
    expect(failure({ result: { isError: true, content: [] }, structured: true }).message).toBe(`${TOOL} reported an error: no message`);
    expect(failure({ result: { isError: true, structuredContent: { sum: 1 } }, structured: true }).message).toBe(`${TOOL} reported an error: no message`);
  });

  it('clips the error text at 500 characters', () => {
    const text = 'e'.repeat(2_000);
    const { message } = failure({ result: { isError: true, content: [{ type: 'text', text }] }, structured: false });
    const shown = message.slice(`${TOOL} reported an error: `.length);
    expect(shown).toHaveLength(500);
    expect(shown).toBe(`${'e'.repeat(499)}…`);
    const exact = failure({ result: { isError: true, content: [{ type: 'text', text: 'f'.repeat(500) }] }, structured: false }).message;
    expect(exact).toBe(`${TOOL} reported an error: ${'f'.repeat(500)}`);
  });

  it('returns structuredContent for a tool with an outputSchema', () => {
    const answer: McpCallResult = { result: { structuredContent: { sum: 3 }, content: [{ type: 'text', text: '{"sum": 999}' }] }, structured: true };
    expect(outputOf(TOOL, answer)).toEqual({ sum: 3 });
  });

  it('parses the JSON text when a tool with an outputSchema sends no structuredContent', () => {
    expect(outputOf(TOOL, { result: { content: [{ type: 'text', text: '{"sum": 3, "terms": [1, 2]}' }] }, structured: true })).toEqual({ sum: 3, terms: [1, 2] });
  });

  it('makes non-JSON text from a tool with an outputSchema TOOL_FAILED', () => {
    expect(failure({ result: { content: [{ type: 'text', text: 'The sum is 3' }] }, structured: true }).message).toBe(`${TOOL} declares an outputSchema but answered without structuredContent`);
    expect(failure({ result: { content: [] }, structured: true }).message).toContain('without structuredContent');
  });

  it('keeps the typed content blocks of a tool without an outputSchema', () => {
    const content = [
      { type: 'text', text: '{"looks": "like json"}' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///a.txt', text: 'a' } },
    ];
    expect(outputOf(TOOL, { result: { content, structuredContent: { ignored: true } }, structured: false })).toEqual({ content });
    expect(outputOf(TOOL, { result: {}, structured: false })).toEqual({ content: [] });
  });
});
