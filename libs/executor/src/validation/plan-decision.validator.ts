import type { Plan } from '@toolgate/planner';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/**
 * Only a USE_TOOLS plan runs. Any other decision says why, in the planner's words, as a typed error:
 * CLARIFY names the missing arguments, NO_MATCH is TOOL_NOT_FOUND, the rest is INVALID_PLAN.
 */
export function assertExecutable(plan: Pick<Plan, 'decision' | 'question' | 'missing' | 'explanation'>): void {
  if (plan.decision === 'USE_TOOLS') return;
  if (plan.decision === 'CLARIFY') {
    throw new ToolgateError(
      ErrorCode.INVALID_ARGUMENTS,
      `the task needs more before it can run: ${plan.question ?? 'some required arguments are missing'}`,
      (plan.missing ?? []).map((m) => ({ path: m.path, message: `${m.tool}${m.step ? ` (step ${m.step})` : ''} needs it${m.description ? `: ${m.description}` : ''}` })),
    );
  }
  if (plan.decision === 'NO_MATCH') throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `no tool you may use fits the task${plan.explanation ? `: ${plan.explanation}` : ''}`);
  throw new ToolgateError(ErrorCode.INVALID_PLAN, `the planner answered without tools, so nothing runs${plan.explanation ? `: ${plan.explanation}` : ''}`, [
    { path: '/decision', message: plan.decision },
  ]);
}
