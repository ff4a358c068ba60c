import { ErrorCode } from '@toolgate/sdk';
import type { TaskInput } from './plan.types';
import { checkTaskInput, MAX_TASK_CHARS } from './task-input.validator';

const task = (overrides: Partial<TaskInput> = {}): TaskInput => ({ text: 'convert 5 km to miles', images: [], ...overrides });

describe('checkTaskInput', () => {
  it('accepts text, an image without text, a known zone, an ISO date-time and text of exactly the limit', () => {
    expect(() => checkTaskInput(task())).not.toThrow();
    expect(() => checkTaskInput(task({ text: '  ', images: [{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }] }))).not.toThrow();
    expect(() => checkTaskInput(task({ timeZone: 'Europe/Berlin', referenceTime: '2024-02-29T10:00:00Z' }))).not.toThrow();
    expect(MAX_TASK_CHARS).toBe(20_000);
    expect(() => checkTaskInput(task({ text: 'x'.repeat(MAX_TASK_CHARS) }))).not.toThrow();
  });

  it.each([
    ['an empty task', { text: '   ' }, 'the task is empty: give text or an image', { path: '/text', message: 'must not be empty' }],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'unknown time zone "Mars/Olympus"', { path: '/timeZone', message: 'must be an IANA time zone, e.g. Europe/Berlin' }],
    [
      'a referenceTime that is not a date-time',
      { referenceTime: 'next friday' },
      'referenceTime "next friday" is not a date-time',
      { path: '/referenceTime', message: 'must be an ISO-8601 date-time' },
    ],
    ['text over 20,000 characters', { text: 'x'.repeat(20_001) }, 'the task has 20001 characters; at most 20000 are accepted', { path: '/text', message: 'longer than 20000 characters' }],
    ['several faults, naming the first', { text: '', timeZone: 'Mars/Olympus' }, 'the task is empty: give text or an image', { path: '/text', message: 'must not be empty' }],
  ])('refuses %s with INVALID_ARGUMENTS', (_, overrides: Partial<TaskInput>, message, detail) => {
    expect(() => checkTaskInput(task(overrides))).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENTS, message, details: [detail] }));
  });
});
