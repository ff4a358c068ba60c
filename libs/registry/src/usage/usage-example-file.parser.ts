import { readFile } from 'node:fs/promises';
import { ErrorCode, type ErrorDetail, NAMESPACE_PATTERN, TOOL_NAME_PATTERN, ToolgateError } from '@toolgate/sdk';

/** Longest query kept as an example: search queries are short, and the de-duplication key must stay indexable. */
export const MAX_EXAMPLE_QUERY_LENGTH = 500;
/** Problems listed in one error; the rest are counted. */
const MAX_REPORTED_ISSUES = 20;

/** One labelled example read from a file; `line` is where it came from, for error messages. */
export interface LabelledExample {
  toolId: string;
  query: string;
  line: number;
}

/** The de-duplication key of a query: case and spacing do not make a new example. */
export const normalizeExampleQuery = (query: string): string => query.trim().replace(/\s+/g, ' ').toLowerCase();

/** A problem with a query, or null; shared by the file reader and single records. */
export function queryProblem(query: unknown): string | null {
  if (typeof query !== 'string' || query.trim() === '') return '"query" must be a non-empty string';
  if (query.trim().length > MAX_EXAMPLE_QUERY_LENGTH || normalizeExampleQuery(query).length > MAX_EXAMPLE_QUERY_LENGTH) {
    return `"query" must be at most ${MAX_EXAMPLE_QUERY_LENGTH} characters`;
  }
  return null;
}

/** A problem with a tool id, or null: examples name a tool, never a version of it. */
export function toolIdProblem(id: unknown, field: string): string | null {
  const [namespace, name, ...rest] = typeof id === 'string' ? id.split('/') : [];
  if (rest.length > 0 || !namespace || !name || !NAMESPACE_PATTERN.test(namespace) || !TOOL_NAME_PATTERN.test(name)) {
    return `${field} must be a tool id "namespace/name" (without @version), got ${JSON.stringify(id)}`;
  }
  return null;
}

/** One INVALID_ARGUMENTS error for every problem found, the first named in the message. */
export function invalidLines(issues: ErrorDetail[]): ToolgateError {
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${issues[0].path}: ${issues[0].message}${more}`, issues.slice(0, MAX_REPORTED_ISSUES));
}

function lineProblems(value: unknown, split: string | undefined): { problems: string[]; toolIds: string[]; skip: boolean } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problems: ['must be a JSON object'], toolIds: [], skip: false };
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  const query = queryProblem(v.query);
  if (query) problems.push(query);
  let toolIds: string[] = [];
  if (v.tool !== undefined && v.gold !== undefined) problems.push('give either "tool" or "gold", not both');
  else if (v.tool !== undefined) {
    const problem = toolIdProblem(v.tool, '"tool"');
    if (problem) problems.push(problem);
    toolIds = [v.tool as string];
  } else if (v.gold !== undefined) {
    if (!Array.isArray(v.gold) || v.gold.length === 0) problems.push('"gold" must be a non-empty array of tool ids');
    else {
      problems.push(...v.gold.flatMap((id, i) => toolIdProblem(id, `"gold"[${i}]`) ?? []));
      toolIds = [...new Set(v.gold as string[])];
    }
  } else problems.push('give "tool" (a tool id) or "gold" (an array of tool ids)');
  if (v.split !== undefined && (typeof v.split !== 'string' || v.split === '')) problems.push('"split" must be a non-empty string when given');
  // Lines of other splits are still checked: a bad file is refused whole, whatever the filter.
  return { problems, toolIds, skip: split !== undefined && v.split !== split };
}

/**
 * Reads JSON Lines of `{query, tool}` or the shared evaluation format `{qid, query, gold[], split}`
 * (one example per gold tool). With `split`, only that split's lines count. Every line is checked
 * before anything is returned, and every problem is named `file:line`.
 */
export async function readExampleFile(path: string, split?: string): Promise<LabelledExample[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read ${path}: ${(error as Error).message}`, [{ path, message: 'unreadable' }], { cause: error });
  }
  const examples: LabelledExample[] = [];
  const issues: ErrorDetail[] = [];
  let lines = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    lines++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      issues.push({ path: `${path}:${line}`, message: `not valid JSON: ${(error as Error).message}` });
      return;
    }
    const { problems, toolIds, skip } = lineProblems(value, split);
    issues.push(...problems.map((message) => ({ path: `${path}:${line}`, message })));
    if (problems.length === 0 && !skip) examples.push(...toolIds.map((toolId) => ({ toolId, query: (value as { query: string }).query.trim(), line })));
  });
  if (issues.length > 0) throw invalidLines(issues);
  if (examples.length === 0) {
    const where = split === undefined ? '' : ` of split "${split}" (the file has ${lines} lines)`;
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path} holds no usage examples${where}`, [{ path, message: 'no examples' }]);
  }
  return examples;
}
