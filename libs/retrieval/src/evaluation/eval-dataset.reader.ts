import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';

/** One line of `tools.jsonl` in the shared evaluation format. */
export interface EvalTool {
  id: string;
  name: string;
  description: string;
  text?: string;
  /** Tool ids this one declares it is used with (a manifest's `companions`). */
  companions?: string[];
}

/** One line of `queries.jsonl`. */
export interface EvalQuery {
  qid: string;
  query: string;
  gold: string[];
  split: string;
}

async function* jsonLines(path: string): AsyncGenerator<{ value: unknown; line: number }> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      try {
        yield { value: JSON.parse(text), line };
      } catch (error) {
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path}:${line} is not valid JSON: ${(error as Error).message}`, [{ path: `${path}:${line}`, message: 'not JSON' }]);
      }
    }
  } catch (error) {
    if (ToolgateError.is(error)) throw error;
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read ${path}: ${(error as Error).message}`, [], { cause: error });
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function fail(path: string, line: number, issues: string[]): never {
  throw new ToolgateError(
    ErrorCode.INVALID_ARGUMENTS,
    `${path}:${line}: ${issues.join('; ')}`,
    issues.map((message) => ({ path: `${path}:${line}`, message })),
  );
}

export async function readEvalTools(path: string): Promise<EvalTool[]> {
  const tools: EvalTool[] = [];
  const seen = new Set<string>();
  for await (const { value, line } of jsonLines(path)) {
    const v = value as Record<string, unknown>;
    const issues: string[] = [];
    if (!isString(v.id)) issues.push('"id" must be a non-empty string');
    else if (seen.has(v.id)) issues.push(`duplicate tool id "${v.id}"`);
    if (!isString(v.name)) issues.push('"name" must be a non-empty string');
    if (typeof v.description !== 'string') issues.push('"description" must be a string');
    if (v.text !== undefined && typeof v.text !== 'string') issues.push('"text" must be a string when given');
    if (v.companions !== undefined && !(Array.isArray(v.companions) && v.companions.every(isString))) issues.push('"companions" must be an array of tool ids when given');
    if (issues.length) fail(path, line, issues);
    seen.add(v.id as string);
    tools.push({
      id: v.id as string,
      name: v.name as string,
      description: v.description as string,
      text: v.text as string | undefined,
      ...(v.companions ? { companions: v.companions as string[] } : {}),
    });
  }
  if (tools.length === 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path} holds no tools`);
  for (const tool of tools) {
    const unknown = (tool.companions ?? []).filter((id) => !seen.has(id));
    if (unknown.length > 0)
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path}: tool "${tool.id}" names companions that are not in the file: ${unknown.join(', ')}`, [
        { path: `${path}:${tool.id}`, message: 'unknown companion' },
      ]);
  }
  return tools;
}

/**
 * A TaskBench tool graph (`graph_desc.json`: `{nodes, links: [{source, target}]}`) as declarations: each
 * link's source declares its target a companion. Every end must be one of `tools`.
 */
export async function readToolGraph(path: string, tools: readonly EvalTool[]): Promise<EvalTool[]> {
  let graph: { links?: unknown };
  try {
    graph = JSON.parse(await readFile(path, 'utf8')) as { links?: unknown };
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read the tool graph ${path}: ${(error as Error).message}`, [{ path, message: 'not a readable JSON file' }], { cause: error });
  }
  const links = graph?.links;
  if (!Array.isArray(links) || !links.every((l) => isString(l?.source) && isString(l?.target)))
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path} is not a tool graph: "links" must be an array of {source, target} tool ids`, [
      { path: `${path}:links`, message: 'not an array of {source, target}' },
    ]);
  const ids = new Set(tools.map((t) => t.id));
  const unknown = [...new Set(links.flatMap((l: { source: string; target: string }) => [l.source, l.target]).filter((id) => !ids.has(id)))];
  if (unknown.length > 0)
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path}: ${unknown.length} linked tools are not in tools.jsonl (${unknown.slice(0, 5).join(', ')})`, [{ path, message: 'unknown tool' }]);
  const declared = new Map<string, Set<string>>();
  for (const { source, target } of links as { source: string; target: string }[]) declared.set(source, (declared.get(source) ?? new Set()).add(target));
  return tools.map((tool) => (declared.has(tool.id) ? { ...tool, companions: [...new Set([...(tool.companions ?? []), ...(declared.get(tool.id) as Set<string>)])] } : tool));
}

/** Reads queries, checking every gold id against the tools; `splits` keeps only those splits. */
export async function readEvalQueries(path: string, toolIds: ReadonlySet<string>): Promise<EvalQuery[]> {
  const queries: EvalQuery[] = [];
  const unknown: ErrorDetail[] = [];
  for await (const { value, line } of jsonLines(path)) {
    const v = value as Record<string, unknown>;
    const issues: string[] = [];
    if (!isString(v.qid)) issues.push('"qid" must be a non-empty string');
    if (!isString(v.query)) issues.push('"query" must be a non-empty string');
    if (!Array.isArray(v.gold) || v.gold.length === 0 || !v.gold.every(isString)) issues.push('"gold" must be a non-empty array of tool ids');
    if (!isString(v.split)) issues.push('"split" must be a non-empty string');
    if (issues.length) fail(path, line, issues);
    for (const id of v.gold as string[]) if (!toolIds.has(id)) unknown.push({ path: `${path}:${line}`, message: `gold tool "${id}" is not in tools.jsonl` });
    queries.push({ qid: v.qid as string, query: v.query as string, gold: v.gold as string[], split: v.split as string });
  }
  if (unknown.length > 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${unknown.length} gold ids are not in tools.jsonl`, unknown.slice(0, 20));
  return queries;
}

/** A dataset tool as an index document: the `text` field, when present, is its richest description. */
export function evalToolDocument(tool: EvalTool): ToolDocument {
  return {
    id: tool.id,
    version: '0',
    name: tool.name,
    title: tool.name,
    description: tool.text && tool.text.length > tool.description.length ? tool.text : tool.description,
    category: [],
    tags: [],
    parameters: [],
    exampleQueries: [],
    usageQueries: [],
    ...(tool.companions && tool.companions.length > 0 ? { companions: tool.companions } : {}),
    risk: 'read',
  };
}
