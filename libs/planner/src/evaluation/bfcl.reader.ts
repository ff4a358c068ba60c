import { readFile } from 'node:fs/promises';
import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';

/** A function as BFCL offers it: `parameters` is JSON-Schema-like with BFCL's own type names. */
export interface BfclFunction {
  name: string;
  description: string;
  parameters: BfclSchema;
}

/** BFCL's schema dialect: `dict`, `float`, `tuple`, `any` beside the JSON Schema types. */
export interface BfclSchema {
  type?: string;
  description?: string;
  properties?: Record<string, BfclSchema>;
  items?: BfclSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  [keyword: string]: unknown;
}

export interface BfclSample {
  id: string;
  /** The user's request: the user messages of the sample's last turn. */
  text: string;
  functions: BfclFunction[];
}

/** One expected call: the function and, per parameter, every acceptable value (`""` = may be left out). */
export interface BfclGoldCall {
  name: string;
  arguments: Record<string, unknown[]>;
}

const fail = (file: string, line: number, message: string): never => {
  throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${file}:${line}: ${message}`, [{ path: `${file}:${line}`, message }]);
};

const asRecord = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

async function jsonLines(file: string): Promise<{ line: number; value: Record<string, unknown> }[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read ${file}: ${(error as Error).message}`, [{ path: file, message: 'unreadable' }], { cause: error });
  }
  const rows: { line: number; value: Record<string, unknown> }[] = [];
  for (const [index, text] of content.split('\n').entries()) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      fail(file, index + 1, `not valid JSON: ${(error as Error).message}`);
    }
    const record = asRecord(value) ?? fail(file, index + 1, 'must be a JSON object');
    if (typeof record.id !== 'string' || record.id === '') fail(file, index + 1, '"id" must be a non-empty string');
    rows.push({ line: index + 1, value: record });
  }
  if (rows.length === 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${file} holds no samples`, [{ path: file, message: 'empty' }]);
  return rows;
}

function requestText(file: string, line: number, question: unknown): string {
  const turns = Array.isArray(question) ? question : fail(file, line, '"question" must be an array of turns');
  const last = turns.at(-1);
  const messages = Array.isArray(last) ? last : fail(file, line, '"question" turns must be arrays of {role, content}');
  const text = messages
    .flatMap((m) => {
      const message = asRecord(m);
      return message?.role === 'user' && typeof message.content === 'string' ? [message.content.trim()] : [];
    })
    .join('\n')
    .trim();
  return text !== '' ? text : fail(file, line, 'the last turn of "question" has no user message');
}

function readFunction(file: string, line: number, raw: unknown, i: number): BfclFunction {
  const fn = asRecord(raw);
  if (!fn || typeof fn.name !== 'string' || fn.name === '') return fail(file, line, `function ${i}: "name" must be a non-empty string`);
  const parameters = asRecord(fn.parameters) ?? fail(file, line, `function "${fn.name}": "parameters" must be an object`);
  return { name: fn.name, description: typeof fn.description === 'string' ? fn.description : '', parameters: parameters as BfclSchema };
}

/** Reads a BFCL question file (JSON lines), naming the line of the first malformed sample. */
export async function readBfclSamples(file: string): Promise<BfclSample[]> {
  const seen = new Set<string>();
  return (await jsonLines(file)).map(({ line, value }) => {
    const id = value.id as string;
    if (seen.has(id)) fail(file, line, `duplicate id "${id}"`);
    seen.add(id);
    const functions = Array.isArray(value.function) ? value.function : fail(file, line, '"function" must be an array of functions');
    return { id, text: requestText(file, line, value.question), functions: functions.map((fn, i) => readFunction(file, line, fn, i)) };
  });
}

/** Reads a BFCL possible-answer file: `{id, ground_truth: [{func_name: {param: [acceptable values]}}]}` per line. */
export async function readBfclAnswers(file: string): Promise<Map<string, BfclGoldCall[]>> {
  const answers = new Map<string, BfclGoldCall[]>();
  for (const { line, value } of await jsonLines(file)) {
    const truth = Array.isArray(value.ground_truth) ? value.ground_truth : fail(file, line, '"ground_truth" must be an array of {function: {parameter: [values]}}');
    const calls = truth.map((raw, i): BfclGoldCall => {
      const entries = Object.entries(asRecord(raw) ?? {});
      if (entries.length !== 1) fail(file, line, `ground_truth ${i} must name exactly one function`);
      const [name, args] = entries[0];
      const params = asRecord(args) ?? fail(file, line, `ground_truth ${i} ("${name}"): its parameters must be an object`);
      for (const [param, values] of Object.entries(params)) if (!Array.isArray(values)) fail(file, line, `ground_truth ${i} ("${name}"): "${param}" must list its acceptable values`);
      return { name, arguments: params as Record<string, unknown[]> };
    });
    answers.set(value.id as string, calls);
  }
  return answers;
}

const JSON_TYPE: Record<string, string | undefined> = { dict: 'object', float: 'number', tuple: 'array', any: undefined, integer: 'integer', string: 'string', boolean: 'boolean', array: 'array' };

/**
 * BFCL's dialect as JSON Schema: `dict` → object, `float` → number, `tuple` → array, `any` → no type;
 * descriptions, enums, defaults and `required` kept. An unknown type name is dropped (the value is
 * then unconstrained) rather than guessed.
 */
export function bfclToJsonSchema(schema: BfclSchema): JsonSchema {
  const out: JsonSchema = {};
  const type = typeof schema.type === 'string' ? JSON_TYPE[schema.type] : undefined;
  if (type) out.type = type;
  if (typeof schema.description === 'string') out.description = schema.description;
  if (Array.isArray(schema.enum)) out.enum = schema.enum;
  if (schema.default !== undefined) out.default = schema.default;
  const properties = asRecord(schema.properties);
  if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, bfclToJsonSchema(asRecord(sub) ?? {})]));
  if (Array.isArray(schema.required)) out.required = schema.required.filter((r) => typeof r === 'string');
  const items = asRecord(schema.items);
  if (items) out.items = bfclToJsonSchema(items);
  return out;
}
