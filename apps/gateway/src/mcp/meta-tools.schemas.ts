import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { RUN_STATUSES, STEP_STATUSES } from '@toolgate/sdk';
import { z } from 'zod';

/*
 * The meta-tools' arguments and results as zod schemas: the SDK advertises them as JSON Schema in
 * `tools/list` (inputSchema, outputSchema) and checks every call's arguments against them.
 */

/** Hits search_tools returns without `k`: few enough for a model's context, enough to choose from. */
export const DEFAULT_SEARCH_K = 8;

const image = z.object({
  mimeType: z.string().max(100).describe('declared type; must agree with the bytes (PNG, JPEG, GIF, TIFF, BMP, WebP)'),
  dataBase64: z.base64().max(14_000_000).describe('the image, base64-encoded'),
  name: z.string().max(255).optional(),
});

export const searchToolsInput = z.object({
  query: z.string().max(4000).describe('what the tool should do, in words'),
  k: z.number().int().min(1).max(50).optional().describe(`how many hits (default ${DEFAULT_SEARCH_K})`),
  images: z.array(image).max(4).optional().describe('images that are part of the query (their text is read and added to it)'),
});

export const describeToolInput = z.object({
  id: z.string().min(1).max(300).describe('`namespace/name` or `namespace/name@version`, as search_tools returned it'),
});

export const callToolInput = z.object({
  id: z.string().min(1).max(300).describe('`namespace/name` or `namespace/name@version`'),
  arguments: z.record(z.string(), z.unknown()).default({}).describe("the tool's arguments, matching the inputSchema describe_tool returns"),
});

export const runTaskInput = z.object({
  text: z.string().min(1).max(20_000).describe('what to do, in natural language; Toolgate finds the tools, plans the steps and runs them'),
});

const toolError = z.object({
  code: z.string().describe('Toolgate error code, e.g. INVALID_ARGUMENTS, TOOL_NOT_FOUND, TOOL_FAILED'),
  message: z.string(),
  path: z.string().optional().describe('JSON pointer of the offending field'),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  retryAfterSeconds: z.number().int().optional().describe('when to try again (e.g. INDEX_UNAVAILABLE while the index warms up)'),
});

const approval = z.object({
  stepId: z.string(),
  tool: z.string(),
  reason: z.string(),
  approvers: z.string().describe('who may approve'),
  approveWith: z.string().describe('the GraphQL mutation that approves the step'),
});

const runStep = z.object({
  id: z.string(),
  tool: z.string(),
  status: z.enum(STEP_STATUSES),
  attempts: z.number().int(),
  output: z.unknown().optional(),
  error: toolError.optional(),
  reason: z.string().optional(),
  durationMs: z.number(),
});

export const searchToolsOutput = z.object({
  hits: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string().describe('first sentence of the description'),
      score: z.number(),
      degraded: z.string().optional().describe('set while the index warms up: the hit was found without every vector, e.g. "vectors 12/22"'),
    }),
  ),
});

export const describeToolOutput = z.object({
  id: z.string(),
  version: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  tags: z.array(z.string()),
  risk: z.enum(['read', 'write', 'destructive']),
  requiresApproval: z.boolean(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()),
  examples: z.array(z.object({ query: z.string(), arguments: z.record(z.string(), z.unknown()), output: z.unknown().optional() })),
});

/** A refused call has only `error`; a call that ran has the run's id and status and its one step's outcome. */
export const callToolOutput = z.object({
  runId: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  tool: z.string().optional().describe('`namespace/name@version` that ran (the fallback when one stood in)'),
  output: z.unknown().optional(),
  attempts: z.number().int().optional(),
  error: toolError.optional(),
  approval: approval.optional(),
});

export const runTaskOutput = z.object({
  runId: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  reason: z.string().optional(),
  steps: z.array(runStep).optional(),
  error: toolError.optional(),
  approval: approval.optional(),
});

export type SearchToolsInput = z.infer<typeof searchToolsInput>;
export type CallToolInput = z.infer<typeof callToolInput>;
export type ToolErrorShape = z.infer<typeof toolError>;
export type ApprovalShape = z.infer<typeof approval>;
export type RunStepShape = z.infer<typeof runStep>;

/**
 * A zod schema whose JSON Schema is converted once per process. The SDK converts a tool's schemas on
 * every call (the pre-dispatch header check, the result projection), memoised per server, and /mcp
 * builds a server per request: unmemoised, about 0.8 ms of each call_tool (bench/mcp profile).
 */
function convertedOnce<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const memoised =
    (io: 'input' | 'output') =>
    (options: { readonly target: string }): Record<string, unknown> => {
      const key = `${io} ${options.target}`;
      let json = converted.get(key);
      if (json === undefined) {
        json = standard.jsonSchema[io](options);
        converted.set(key, json);
      }
      return json;
    };
  return { '~standard': { ...standard, jsonSchema: { input: memoised('input'), output: memoised('output') } } };
}

/** The meta-tools' schemas as the SDK is handed them. */
export const META_TOOL_SCHEMAS = {
  searchTools: { inputSchema: convertedOnce(searchToolsInput), outputSchema: convertedOnce(searchToolsOutput) },
  describeTool: { inputSchema: convertedOnce(describeToolInput), outputSchema: convertedOnce(describeToolOutput) },
  callTool: { inputSchema: convertedOnce(callToolInput), outputSchema: convertedOnce(callToolOutput) },
  runTask: { inputSchema: convertedOnce(runTaskInput), outputSchema: convertedOnce(runTaskOutput) },
};
