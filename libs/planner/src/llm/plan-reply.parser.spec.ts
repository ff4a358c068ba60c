import type { ToolDescriptor } from '@toolgate/sdk';
import type { PlanningCandidate } from '../plan/plan.types';
import { CandidateTools } from './candidate.tools';
import { checkPlanReply } from './plan-reply.parser';

const candidate = (id: string, inputSchema: object, rank: number): PlanningCandidate => ({
  id,
  version: '1.0.0',
  descriptor: { title: id, description: `${id} tool`, inputSchema } as unknown as ToolDescriptor,
  score: 1,
  rank,
});
const tools = new CandidateTools([
  candidate('table/parse-csv', { type: 'object', properties: { csv: { type: 'string' } }, required: ['csv'], additionalProperties: false }, 1),
  candidate('table/sum', { type: 'object', properties: { rows: { type: 'array' }, column: { type: 'string' } }, required: ['rows', 'column'], additionalProperties: false }, 2),
  candidate('my.ns/sum', { type: 'object' }, 3),
]);
const reply = (steps: unknown[], decision = 'USE_TOOLS') => ({ decision, question: null, explanation: null, missing: [], steps });
const step = (id: string, tool: string, args: unknown, dependsOn: string[] = []) => ({ id, tool, arguments: typeof args === 'string' ? args : JSON.stringify(args), dependsOn, reason: '' });
const errorsOf = (value: unknown) => {
  const checked = checkPlanReply(value, tools);
  return checked.ok ? [] : checked.errors;
};

describe('checkPlanReply', () => {
  it('gives every candidate a safe, distinct function name', () => {
    expect(tools.aliases).toEqual(['table__parse-csv', 'table__sum', 'my_ns__sum']);
  });

  it('accepts a binding in place of a value, wherever it sits, when its step is a dependency', () => {
    const checked = checkPlanReply(
      reply([step('a', 'table__parse-csv', { csv: 'x,y' }), step('b', 'table__sum', { rows: { $ref: 'steps.a.output/rows' }, column: { $ref: 'steps.a.output./header/0' } }, ['a'])]),
      tools,
    );
    expect(checked.ok && checked.value.steps.map((s) => s.tool)).toEqual(['table/parse-csv@1.0.0', 'table/sum@1.0.0']);
  });

  it('still rejects an unknown field even when a binding fills it, and a malformed $ref', () => {
    expect(errorsOf(reply([step('a', 'table__parse-csv', { csv: 'x' }), step('b', 'table__sum', { rows: [], column: 'y', extra: { $ref: 'steps.a.output' } }, ['a'])]))).toEqual([
      { path: '/steps/1/arguments/extra', message: 'is not a known field' },
    ]);
    expect(errorsOf(reply([step('a', 'table__parse-csv', { csv: 'x' }), step('b', 'table__sum', { rows: { $ref: 'a.rows' }, column: 'y' }, ['a'])]))).toEqual([
      { path: '/steps/1/arguments/rows/$ref', message: expect.stringContaining('must be "steps.<id>.output"') },
    ]);
  });

  it('reports duplicate ids, unknown dependencies and non-object arguments with pointers', () => {
    const errors = errorsOf(reply([step('a', 'table__parse-csv', { csv: 'x' }), step('a', 'table__parse-csv', '[1]', ['zz'])]));
    expect(errors.map((e) => e.path)).toEqual(['/steps/1/id', '/steps/1/dependsOn/0', '/steps/1/arguments']);
  });

  it('reports a cycle through dependsOn', () => {
    const errors = errorsOf(reply([step('a', 'table__parse-csv', { csv: 'x' }, ['b']), step('b', 'table__parse-csv', { csv: 'y' }, ['a']), step('c', 'table__parse-csv', { csv: 'z' })]));
    expect(errors).toEqual([{ path: '/steps', message: 'steps a, b form a cycle through dependsOn' }]);
  });

  it('checks the decision against the steps and the tool choice', () => {
    expect(errorsOf(reply([], 'USE_TOOLS'))).toEqual([{ path: '/steps', message: 'USE_TOOLS needs at least one step' }]);
    expect(errorsOf(reply([], 'CLARIFY'))).toEqual([{ path: '/question', message: 'CLARIFY needs the question for the user' }]);
    const none = checkPlanReply(reply([step('a', 'table__parse-csv', { csv: 'x' })]), tools, 'NONE');
    expect(none.ok ? [] : none.errors).toContainEqual({ path: '/steps', message: 'tools must not be used for this task' });
    const chosen = checkPlanReply(reply([step('a', 'table__parse-csv', { csv: 'x' })]), tools, { tool: 'table/sum' });
    expect(chosen.ok ? [] : chosen.errors).toEqual([{ path: '/steps', message: 'must use table__sum, the tool the caller chose' }]);
  });
});
