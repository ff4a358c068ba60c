import { ErrorCode } from '@toolgate/sdk';
import { progressLine } from './run.command';

const at = '2026-03-06T10:00:00.000Z';

describe('progressLine', () => {
  it('writes one line per step event, with status, time and error', () => {
    expect(progressLine({ type: 'STEP_STARTED', at, runId: 'r', stepId: 's1', tool: 'units/convert@1.0.0' })).toBe('s1 units/convert@1.0.0 RUNNING');
    const step = { id: 's1', tool: 'units/convert@1.0.0', attempts: 1, dependsOn: [], startedAt: at };
    expect(progressLine({ type: 'STEP_FINISHED', at, runId: 'r', step: { ...step, status: 'SUCCEEDED', durationMs: 11.6 } })).toBe('s1 units/convert@1.0.0 SUCCEEDED 12 ms');
    expect(
      progressLine({ type: 'STEP_FINISHED', at, runId: 'r', step: { ...step, status: 'FAILED', durationMs: 2000, error: { code: ErrorCode.TIMEOUT, message: 'did not finish within 2000 ms' } } }),
    ).toBe('s1 units/convert@1.0.0 FAILED 2000 ms TIMEOUT: did not finish within 2000 ms');
    expect(progressLine({ type: 'APPROVAL_REQUESTED', at, runId: 'r', stepId: 'p1', tool: 'vault/purge@1.0.0', reason: 'requires approval' })).toBe(
      'p1 vault/purge@1.0.0 PENDING_APPROVAL (requires approval)',
    );
  });

  it('reports failed attempts only: a successful one is said by STEP_FINISHED', () => {
    expect(progressLine({ type: 'ATTEMPT', at, runId: 'r', stepId: 's1', tool: 't/x@1.0.0', attempt: 1, outcome: 'SUCCEEDED', durationMs: 3 })).toBeNull();
    expect(
      progressLine({ type: 'ATTEMPT', at, runId: 'r', stepId: 's1', tool: 't/x@1.0.0', attempt: 2, outcome: 'FAILED', durationMs: 3, error: { code: ErrorCode.UNAVAILABLE, message: 'down' } }),
    ).toBe('s1 t/x@1.0.0 attempt 2 FAILED 3 ms UNAVAILABLE: down');
  });
});
