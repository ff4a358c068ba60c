import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonSchema } from '@toolgate/sdk';
import { type ArgumentTask, evaluateArgumentFilling, readArgumentTasks } from './argument.evaluator';

const schema: JsonSchema = {
  type: 'object',
  properties: { url: { type: 'string', format: 'uri', description: 'URL.' }, method: { type: 'string', enum: ['GET', 'HEAD'], default: 'GET' } },
  required: ['url'],
};
const base = { tool: 'http/fetch', referenceTime: '2026-06-15T08:00:00Z', timeZone: 'UTC' };

describe('evaluateArgumentFilling', () => {
  it('scores exact arguments, CLARIFY recall, false CLARIFY and ambiguity from the labels', () => {
    const tasks: ArgumentTask[] = [
      { ...base, id: 'ok', text: 'HEAD https://a.example.com', expected: { arguments: { url: 'https://a.example.com', method: 'HEAD' } } },
      { ...base, id: 'wrong', text: 'fetch https://b.example.com', expected: { arguments: { url: 'https://b.example.com', method: 'HEAD' } } },
      { ...base, id: 'missing', text: 'fetch the page', expected: { arguments: {} }, missing: ['/url'] },
      { ...base, id: 'two', text: 'fetch https://a.example.com or https://b.example.com', expected: { arguments: {} }, ambiguous: ['/url'] },
    ];
    const result = evaluateArgumentFilling(tasks, (tool) => (tool === 'http/fetch' ? schema : undefined));
    expect(result).toMatchObject({ tasks: 4, expectedArguments: 4, argumentsExact: 3 / 4, clarifyRecall: 1, clarifyTasks: 1, falseClarify: 0, completeTasks: 2, ambiguousRecall: 1 });
    expect(result.misses).toEqual([{ id: 'wrong', path: '/method', expected: 'HEAD', got: undefined }]);
  });

  it('refuses a task whose tool has no schema', () => {
    expect(() => evaluateArgumentFilling([{ ...base, id: 'x', tool: 'nope/tool', text: 't', expected: { arguments: {} } }], () => undefined)).toThrow(/nope\/tool/);
  });
});

describe('readArgumentTasks', () => {
  it('names the line of a malformed task', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arg-tasks-'));
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...base, id: 'a', text: 't', expected: { arguments: {} } })}\n\n{"id": "b"}\n`);
    await expect(readArgumentTasks(file)).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringContaining('tasks.jsonl:3') });
  });
});
