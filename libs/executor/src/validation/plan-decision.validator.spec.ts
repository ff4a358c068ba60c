import type { Plan } from '@toolgate/planner';
import { ErrorCode } from '@toolgate/sdk';
import { assertExecutable } from './plan-decision.validator';

const plan = (overrides: Partial<Plan>): Plan => ({ id: 'p1', decision: 'USE_TOOLS', steps: [], ...overrides });

describe('assertExecutable', () => {
  it('lets a USE_TOOLS plan through', () => {
    expect(() => assertExecutable(plan({}))).not.toThrow();
  });

  it('answers CLARIFY with INVALID_ARGUMENTS naming each missing argument', () => {
    const clarify = plan({
      decision: 'CLARIFY',
      question: 'Which city?',
      missing: [
        { step: 's1', tool: 'weather/current@1.0.0', path: '/city', description: 'the city' },
        { tool: 'units/convert@1.0.0', path: '/to' },
      ],
    });
    expect(() => assertExecutable(clarify)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENTS,
        message: 'the task needs more before it can run: Which city?',
        details: [
          { path: '/city', message: 'weather/current@1.0.0 (step s1) needs it: the city' },
          { path: '/to', message: 'units/convert@1.0.0 needs it' },
        ],
      }),
    );
    expect(() => assertExecutable(plan({ decision: 'CLARIFY' }))).toThrow(
      expect.objectContaining({ message: 'the task needs more before it can run: some required arguments are missing', details: [] }),
    );
  });

  it('answers NO_MATCH with TOOL_NOT_FOUND', () => {
    expect(() => assertExecutable(plan({ decision: 'NO_MATCH', explanation: 'nothing fits' }))).toThrow(
      expect.objectContaining({ code: ErrorCode.TOOL_NOT_FOUND, message: 'no tool you may use fits the task: nothing fits' }),
    );
    expect(() => assertExecutable(plan({ decision: 'NO_MATCH' }))).toThrow(expect.objectContaining({ message: 'no tool you may use fits the task' }));
  });

  it('answers any other decision with INVALID_PLAN at /decision', () => {
    expect(() => assertExecutable(plan({ decision: 'ANSWER_DIRECTLY', explanation: 'Paris.' }))).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_PLAN, message: 'the planner answered without tools, so nothing runs: Paris.', details: [{ path: '/decision', message: 'ANSWER_DIRECTLY' }] }),
    );
  });
});
