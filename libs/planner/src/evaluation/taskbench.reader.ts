import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import type { ToolEdge } from '../graph/tool.graph';

/** A tool of `tool_desc.json`. */
export interface TaskBenchTool {
  id: string;
  description: string;
  domains: string[];
  /** TaskBench's `parameters` ([{name, type, desc}]) when the set has them. */
  parameters: { name: string; type?: string; description?: string }[];
}

/** One line of `data.json`. */
export interface TaskBenchSample {
  id: string;
  request: string;
  /** Gold tool names, in plan order. */
  nodes: string[];
  links: [string, string][];
  /** "Step 1 Call X to ..." lines, when the set has them. */
  steps: string[];
  type?: string;
}

export interface TaskBenchDataset {
  dir: string;
  tools: TaskBenchTool[];
  samples: TaskBenchSample[];
  edges: ToolEdge[];
  /** Ids under `test_ids` of `split_ids.json` (every group flattened). */
  testIds: Set<string>;
}

const invalid = (file: string, issues: ErrorDetail[]) =>
  new ToolgateError(
    ErrorCode.INVALID_ARGUMENTS,
    `${file}: ${issues
      .slice(0, 3)
      .map((i) => `${i.path} ${i.message}`)
      .join('; ')}${issues.length > 3 ? ` (+${issues.length - 3} more)` : ''}`,
    issues.slice(0, 20),
  );

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read ${file}: ${(error as Error).message}`, [{ path: file, message: 'unreadable' }], { cause: error });
  }
}

async function readJson(file: string): Promise<unknown> {
  const text = await readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${file} is not valid JSON: ${(error as Error).message}`, [{ path: file, message: 'not JSON' }], { cause: error });
  }
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const asRecord = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

function readTools(file: string, value: unknown): TaskBenchTool[] {
  const nodes = asRecord(value)?.nodes;
  if (!Array.isArray(nodes)) throw invalid(file, [{ path: '/nodes', message: 'must be an array of tools' }]);
  const issues: ErrorDetail[] = [];
  const seen = new Set<string>();
  const tools: TaskBenchTool[] = [];
  for (const [i, raw] of nodes.entries()) {
    const node = asRecord(raw);
    const problem =
      !node || !isText(node.id)
        ? { path: `/nodes/${i}/id`, message: 'must be a non-empty string' }
        : seen.has(node.id)
          ? { path: `/nodes/${i}/id`, message: `duplicate tool "${node.id}"` }
          : typeof node.desc !== 'string'
            ? { path: `/nodes/${i}/desc`, message: 'must be a string' }
            : null;
    if (problem || !node) {
      if (problem) issues.push(problem);
      continue;
    }
    const id = node.id as string;
    seen.add(id);
    const parameters = Array.isArray(node.parameters)
      ? node.parameters.flatMap((p) => {
          const param = asRecord(p);
          return param && isText(param.name)
            ? [{ name: param.name, type: typeof param.type === 'string' ? param.type : undefined, description: typeof param.desc === 'string' ? param.desc : undefined }]
            : [];
        })
      : [];
    const domains = Array.isArray(node.domain) ? node.domain.filter(isText) : [];
    tools.push({ id, description: node.desc as string, domains, parameters });
  }
  if (issues.length > 0) throw invalid(file, issues);
  if (tools.length === 0) throw invalid(file, [{ path: '/nodes', message: 'holds no tools' }]);
  return tools;
}

function readEdges(file: string, value: unknown, tools: ReadonlySet<string>): ToolEdge[] {
  const links = asRecord(value)?.links;
  if (!Array.isArray(links)) throw invalid(file, [{ path: '/links', message: 'must be an array of {source, target}' }]);
  const issues: ErrorDetail[] = [];
  const edges: ToolEdge[] = [];
  for (const [i, raw] of links.entries()) {
    const link = asRecord(raw);
    if (!link || !isText(link.source) || !isText(link.target)) {
      issues.push({ path: `/links/${i}`, message: 'must have string source and target' });
      continue;
    }
    for (const end of ['source', 'target'] as const) if (!tools.has(link[end] as string)) issues.push({ path: `/links/${i}/${end}`, message: `"${link[end]}" is not a tool of tool_desc.json` });
    edges.push({ source: link.source, target: link.target });
  }
  if (issues.length > 0) throw invalid(file, issues);
  return edges;
}

function readSamples(file: string, text: string, tools: ReadonlySet<string>): TaskBenchSample[] {
  const samples: TaskBenchSample[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${file}:${i + 1} is not valid JSON: ${(error as Error).message}`, [{ path: `${file}:${i + 1}`, message: 'not JSON' }], { cause: error });
    }
    const v = asRecord(value) ?? {};
    const issues: string[] = [];
    const id = typeof v.id === 'number' ? String(v.id) : v.id;
    if (!isText(id)) issues.push('"id" must be a non-empty string');
    else if (seen.has(id)) issues.push(`duplicate id "${id}"`);
    if (!isText(v.user_request)) issues.push('"user_request" must be a non-empty string');
    const nodes = Array.isArray(v.task_nodes) ? v.task_nodes.map((n) => asRecord(n)?.task) : null;
    if (!nodes?.every(isText)) issues.push('"task_nodes" must be an array of {task: string}');
    else for (const n of nodes) if (!tools.has(n)) issues.push(`task node "${n}" is not a tool of tool_desc.json`);
    const links = Array.isArray(v.task_links) ? v.task_links.map((l) => [asRecord(l)?.source, asRecord(l)?.target]) : null;
    if (!links?.every(([s, t]) => isText(s) && isText(t))) issues.push('"task_links" must be an array of {source, target}');
    if (issues.length > 0)
      throw invalid(
        file,
        issues.map((message) => ({ path: where, message })),
      );
    seen.add(id as string);
    samples.push({
      id: id as string,
      request: (v.user_request as string).trim(),
      nodes: nodes as string[],
      links: links as [string, string][],
      steps: Array.isArray(v.task_steps) ? v.task_steps.filter(isText) : [],
      type: typeof v.type === 'string' ? v.type : undefined,
    });
  }
  if (samples.length === 0) throw invalid(file, [{ path: '/', message: 'holds no samples' }]);
  return samples;
}

function readTestIds(file: string, value: unknown, samples: ReadonlySet<string>): Set<string> {
  const testIds = asRecord(value)?.test_ids;
  const groups = Array.isArray(testIds) ? [testIds] : Object.values(asRecord(testIds) ?? {});
  if (groups.length === 0 || !groups.every((g) => Array.isArray(g))) throw invalid(file, [{ path: '/test_ids', message: 'must be an array of ids or an object of id arrays' }]);
  const ids = new Set<string>();
  const issues: ErrorDetail[] = [];
  for (const id of groups.flat()) {
    const key = typeof id === 'number' ? String(id) : id;
    if (!isText(key) || !samples.has(key)) issues.push({ path: '/test_ids', message: `"${String(id)}" is not an id of data.json` });
    else ids.add(key);
  }
  if (issues.length > 0) throw invalid(file, issues);
  return ids;
}

/** Reads a TaskBench-format folder; every problem is INVALID_ARGUMENTS naming the file and the line or JSON pointer. */
export async function readTaskBench(dir: string): Promise<TaskBenchDataset> {
  const file = (name: string) => join(dir, name);
  const tools = readTools(file('tool_desc.json'), await readJson(file('tool_desc.json')));
  const toolIds = new Set(tools.map((t) => t.id));
  const edges = readEdges(file('graph_desc.json'), await readJson(file('graph_desc.json')), toolIds);
  const samples = readSamples(file('data.json'), await readText(file('data.json')), toolIds);
  const testIds = readTestIds(file('split_ids.json'), await readJson(file('split_ids.json')), new Set(samples.map((s) => s.id)));
  return { dir, tools, samples, edges, testIds };
}

/** The text of a TaskBench step line: "Step 2 Call flight_search to find flights" -> tool and "find flights". */
export function parseStepLine(line: string): { tool: string; text: string } | null {
  const match = /^\s*Step\s+\d+\s*[:.]?\s*(?:Call|Use)\s+([\w./-]+)\s*(?:to|for|and)?\s*(.*)$/i.exec(line);
  return match && match[2].trim() !== '' ? { tool: match[1], text: match[2].trim() } : null;
}
