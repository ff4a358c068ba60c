import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import type { TaskImage } from '../plan/plan.types';
import { fillArguments } from './argument.filler';
import type { ArgumentFill } from './argument-fill.types';
import { clarifyQuestion } from './clarify-question.builder';

/** One labelled task of `tasks.jsonl`: what a correct filler gives for the text under the tool's schema. */
export interface ArgumentTask {
  id: string;
  /** `namespace/name` of a bundled tool, or of the tool whose schema `inputSchema` carries. */
  tool: string;
  text: string;
  referenceTime: string;
  timeZone: string;
  /** `each`: the text lists values for one call per item; each entry is what that call adds to `arguments`. */
  expected: { arguments: Record<string, unknown>; each?: Record<string, unknown>[] };
  /** JSON pointers of required fields the text leaves open: CLARIFY must name each. */
  missing?: string[];
  /** JSON pointers of fields the text gives two or more plausible values for. */
  ambiguous?: string[];
  /** The schema, for a tool that is not bundled. */
  inputSchema?: JsonSchema;
  given?: Record<string, unknown>;
  images?: { name: string; mimeType: string }[];
  imageText?: string;
}

export interface ArgumentMiss {
  id: string;
  path: string;
  expected: unknown;
  got: unknown;
}

export interface ArgumentEvalResult {
  tasks: number;
  /** Expected arguments filled with exactly the expected value (deep equality), over all expected arguments. */
  argumentsExact: number;
  expectedArguments: number;
  /** Tasks with a missing required argument whose fill names every one of them (so CLARIFY asks), over those tasks. */
  clarifyRecall: number;
  clarifyTasks: number;
  /** Tasks with nothing missing or ambiguous for which the fill still asks a question, over those tasks. */
  falseClarify: number;
  completeTasks: number;
  /** Tasks with an ambiguous field whose fill reports every one of them, over those tasks. */
  ambiguousRecall: number;
  ambiguousTasks: number;
  /** Arguments filled that the labels do not have (a guess where nothing was expected). */
  extraArguments: number;
  latencyMs: { p50: number; p95: number; max: number };
  misses: ArgumentMiss[];
}

function fail(path: string, line: number, message: string): never {
  throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path}:${line}: ${message}`, [{ path: `${path}:${line}`, message }]);
}

/** Reads `tasks.jsonl`, naming the line of the first malformed task. */
export async function readArgumentTasks(path: string): Promise<ArgumentTask[]> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read ${path}: ${(error as Error).message}`, [{ path, message: 'unreadable' }], { cause: error });
  }
  const tasks: ArgumentTask[] = [];
  const ids = new Set<string>();
  for (const [index, text] of content.split('\n').entries()) {
    const line = index + 1;
    if (text.trim() === '') continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      fail(path, line, `not valid JSON: ${(error as Error).message}`);
    }
    for (const key of ['id', 'tool', 'text', 'referenceTime', 'timeZone']) if (typeof value[key] !== 'string') fail(path, line, `"${key}" must be a string`);
    const expected = value.expected as { arguments?: unknown } | undefined;
    if (!expected || typeof expected.arguments !== 'object' || expected.arguments === null) fail(path, line, '"expected.arguments" must be an object');
    if (Number.isNaN(Date.parse(value.referenceTime as string))) fail(path, line, '"referenceTime" must be an ISO 8601 instant');
    if (ids.has(value.id as string)) fail(path, line, `duplicate id "${value.id}"`);
    ids.add(value.id as string);
    tasks.push(value as unknown as ArgumentTask);
  }
  return tasks;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const ratio = (hit: number, of: number) => (of === 0 ? 1 : hit / of);

/**
 * Runs the filler over labelled tasks and scores it. `schemaOf` gives a bundled tool's input schema;
 * a task naming a tool that has none (and carries no schema of its own) is an error, not a skip.
 */
export function evaluateArgumentFilling(tasks: ArgumentTask[], schemaOf: (tool: string) => JsonSchema | undefined): ArgumentEvalResult {
  let exact = 0;
  let expectedArguments = 0;
  let clarified = 0;
  let clarifyTasks = 0;
  let falseClarify = 0;
  let completeTasks = 0;
  let ambiguousFound = 0;
  let ambiguousTasks = 0;
  let extraArguments = 0;
  const latencies: number[] = [];
  const misses: ArgumentMiss[] = [];
  for (const task of tasks) {
    const schema = task.inputSchema ?? schemaOf(task.tool);
    if (!schema)
      throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `task ${task.id} names tool "${task.tool}", which is not loaded and carries no inputSchema`, [{ path: task.id, message: 'unknown tool' }]);
    const images: TaskImage[] = (task.images ?? []).map((i) => ({ ...i, data: '' }));
    const started = performance.now();
    const fill: ArgumentFill = fillArguments(task.text, schema, {
      referenceTime: new Date(task.referenceTime),
      timeZone: task.timeZone,
      images,
      imageText: task.imageText,
      given: task.given,
    });
    const question = clarifyQuestion(task.tool, fill, schema);
    latencies.push(performance.now() - started);

    for (const [name, value] of Object.entries(task.expected.arguments)) {
      expectedArguments++;
      if (isDeepStrictEqual(fill.arguments[name], value)) exact++;
      else misses.push({ id: task.id, path: `/${name}`, expected: value, got: fill.arguments[name] });
    }
    if (task.expected.each || fill.each) {
      expectedArguments++;
      if (isDeepStrictEqual(fill.each, task.expected.each)) exact++;
      else misses.push({ id: task.id, path: 'each', expected: task.expected.each, got: fill.each });
    }
    for (const name of Object.keys(fill.arguments)) {
      if (!(name in task.expected.arguments)) {
        extraArguments++;
        misses.push({ id: task.id, path: `/${name}`, expected: undefined, got: fill.arguments[name] });
      }
    }
    const missing = new Set(fill.missing.map((m) => m.path));
    const ambiguous = new Set(fill.ambiguous.map((a) => a.path));
    if (task.missing?.length) {
      clarifyTasks++;
      if (question !== undefined && task.missing.every((p) => missing.has(p))) clarified++;
      else misses.push({ id: task.id, path: 'missing', expected: task.missing, got: [...missing] });
    }
    if (task.ambiguous?.length) {
      ambiguousTasks++;
      if (task.ambiguous.every((p) => ambiguous.has(p))) ambiguousFound++;
      else misses.push({ id: task.id, path: 'ambiguous', expected: task.ambiguous, got: [...ambiguous] });
    }
    if (!task.missing?.length && !task.ambiguous?.length) {
      completeTasks++;
      if (question !== undefined) {
        falseClarify++;
        misses.push({ id: task.id, path: 'clarify', expected: undefined, got: question });
      }
    }
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    tasks: tasks.length,
    argumentsExact: ratio(exact, expectedArguments),
    expectedArguments,
    clarifyRecall: ratio(clarified, clarifyTasks),
    clarifyTasks,
    falseClarify: completeTasks === 0 ? 0 : falseClarify / completeTasks,
    completeTasks,
    ambiguousRecall: ratio(ambiguousFound, ambiguousTasks),
    ambiguousTasks,
    extraArguments,
    latencyMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted.at(-1) ?? 0 },
    misses,
  };
}
