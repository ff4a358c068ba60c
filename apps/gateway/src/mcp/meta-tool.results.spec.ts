import { ErrorCode, type Run, ToolgateError } from '@toolgate/sdk';
import { asCallToolError, callToolResult, errorResult, runTaskResult, summaryOf } from './meta-tool.results';

const alice = { tenant: 'acme', subject: 'alice', roles: ['analyst'] };
const runOf = (status: Run['status'], step: Partial<Run['steps'][number]>): Run => ({
  id: 'run-1',
  status,
  traceId: 't',
  planId: 'run-1',
  owner: { tenant: 'acme', subject: 'alice' },
  steps: [{ id: 'call', tool: 'calc/eval@1.0.0', status: 'SUCCEEDED', attempts: 1, dependsOn: [], startedAt: null, durationMs: 3, ...step }],
  replans: 0,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
});

describe('meta-tool results', () => {
  it('keeps a hit to the first sentence of its description, at most 200 characters', () => {
    expect(summaryOf('Converts units. Use it for lengths.\nNot for money.')).toBe('Converts units.');
    expect(summaryOf(`${'word '.repeat(100)}end.`)).toHaveLength(200);
    expect(summaryOf(`${'word '.repeat(100)}end.`).endsWith('…')).toBe(true);
  });

  it('carries the same JSON as structuredContent and as the text block', () => {
    const result = callToolResult(runOf('SUCCEEDED', { output: { result: 14 } }), alice);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ runId: 'run-1', status: 'SUCCEEDED', tool: 'calc/eval@1.0.0', attempts: 1, output: { result: 14 } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  });

  it('makes a failed step a tool error with its code, not a protocol error', () => {
    const result = callToolResult(runOf('FAILED', { status: 'FAILED', error: { code: ErrorCode.TIMEOUT, message: 'took too long' } }), alice);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'FAILED', error: { code: 'TIMEOUT', message: 'took too long' } });
    expect((result.content[0] as { text: string }).text).toBe('TIMEOUT: took too long');
  });

  it('answers a step waiting for approval with the run id, who approves and the mutation, without isError', () => {
    const result = runTaskResult(runOf('PENDING_APPROVAL', { status: 'PENDING_APPROVAL', reason: 'has risk destructive' }), alice);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      runId: 'run-1',
      status: 'PENDING_APPROVAL',
      approval: { stepId: 'call', approvers: expect.stringContaining('other than alice'), approveWith: 'mutation { approveStep(runId: "run-1", stepId: "call") { status } }' },
    });
    expect((result.content[0] as { text: string }).text).toMatch(/^PENDING_APPROVAL: run run-1 waits for approval of step call/);
  });

  it("names call_tool's own fields in argument errors, and hides what is not a Toolgate error", () => {
    const invalid = new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'plan p cannot run', [
      { path: '/steps/0/arguments/expr', message: 'is not a known field' },
      { path: '/steps/0/tool', message: 'not found' },
    ]);
    expect(errorResult(asCallToolError(invalid)).structuredContent).toEqual({
      error: {
        code: 'INVALID_ARGUMENTS',
        message: 'plan p cannot run',
        details: [
          { path: '/arguments/expr', message: 'is not a known field' },
          { path: '/id', message: 'not found' },
        ],
      },
    });
    expect(errorResult(new Error('secret stack detail')).structuredContent).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
  });
});
