import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { callOutcome } from './executor.instruments';

describe('callOutcome: what a failure-rate alert counts as the tool failing', () => {
  it.each([
    [undefined, 'succeeded'],
    [ErrorCode.TIMEOUT, 'tool_error'],
    [ErrorCode.TOOL_FAILED, 'tool_error'],
    [ErrorCode.UNAVAILABLE, 'tool_error'],
    [ErrorCode.INTERNAL, 'tool_error'],
    [ErrorCode.CIRCUIT_OPEN, 'refused'],
    [ErrorCode.OVERLOADED, 'refused'],
    [ErrorCode.CANCELLED, 'cancelled'],
    [ErrorCode.INTERRUPTED, 'cancelled'],
    [ErrorCode.INVALID_ARGUMENTS, 'caller_error'],
    [ErrorCode.FORBIDDEN, 'caller_error'],
    [ErrorCode.OUTPUT_TOO_LARGE, 'caller_error'],
  ])('%s is %s', (code, outcome) => {
    expect(callOutcome(code ? new ToolgateError(code, `injected ${code}`) : undefined)).toBe(outcome);
  });
});
