import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { isIanaZone } from '../arguments/zone.lexicon';
import type { TaskInput } from './plan.types';

/** Longest task text accepted; longer work is bounded by the planner, not refused, up to this. */
export const MAX_TASK_CHARS = 20_000;

/** What every task must satisfy before it is planned: throws INVALID_ARGUMENTS naming the first offending field. */
export function checkTaskInput(task: TaskInput): void {
  if (task.text.trim() === '' && task.images.length === 0) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the task is empty: give text or an image', [{ path: '/text', message: 'must not be empty' }]);
  }
  if (task.timeZone !== undefined && !isIanaZone(task.timeZone)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown time zone "${task.timeZone}"`, [{ path: '/timeZone', message: 'must be an IANA time zone, e.g. Europe/Berlin' }]);
  }
  if (task.referenceTime !== undefined && Number.isNaN(Date.parse(task.referenceTime))) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `referenceTime "${task.referenceTime}" is not a date-time`, [{ path: '/referenceTime', message: 'must be an ISO-8601 date-time' }]);
  }
  if (task.text.length > MAX_TASK_CHARS) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the task has ${task.text.length} characters; at most ${MAX_TASK_CHARS} are accepted`, [
      { path: '/text', message: `longer than ${MAX_TASK_CHARS} characters` },
    ]);
  }
}
