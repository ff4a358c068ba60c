import { isDeepStrictEqual } from 'node:util';
import { ErrorCode, type ErrorDetail, ToolgateError } from '../errors/toolgate.errors';
import type { ToolContext, ToolManifest } from '../manifest/manifest.types';
import { validateManifest } from '../manifest/manifest.validator';
import { checkAgainstSchema } from '../schema/json-schema.validator';

/** What plugin authors need to test a tool as the host will run it, without a host. */
export function testContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const noop = () => {};
  return {
    logger: { debug: noop, info: noop, warn: noop, error: noop },
    span: { setAttribute: noop, addEvent: noop },
    callId: 'test-call',
    idempotencyKey: 'test-key',
    principal: { tenant: 'test-tenant', subject: 'test-subject' },
    ...overrides,
    signal: overrides.signal ?? new AbortController().signal,
  };
}

/** Runs a tool and checks its output against its outputSchema (TOOL_FAILED with the fields otherwise). */
export async function runTool(tool: ToolManifest, args: Record<string, unknown>, ctx: ToolContext = testContext()): Promise<unknown> {
  if (!tool.run) throw new ToolgateError(ErrorCode.TOOL_FAILED, `${tool.name} has no run function`);
  const output = await tool.run(args, ctx);
  const issues = checkAgainstSchema(tool.outputSchema, output, '/output');
  if (issues.length > 0) throw new ToolgateError(ErrorCode.TOOL_FAILED, `${tool.name} returned output that does not match its outputSchema`, issues);
  return output;
}

/** The ToolgateError a call ends with; throws when the call succeeds or fails with anything else. */
export function toolErrorOf(tool: ToolManifest, args: Record<string, unknown>, ctx: ToolContext = testContext()): Promise<ToolgateError> {
  return errorOf(tool.name, () => runTool(tool, args, ctx));
}

/** The ToolgateError `attempt` ends with; throws when it succeeds or fails with anything else. */
export async function errorOf(name: string, attempt: () => Promise<unknown>): Promise<ToolgateError> {
  let output: unknown;
  try {
    output = await attempt();
  } catch (error) {
    if (error instanceof ToolgateError) return error;
    throw new Error(`${name} threw ${(error as Error)?.name ?? typeof error} instead of a ToolgateError: ${(error as Error)?.message}`);
  }
  throw new Error(`${name} succeeded (${JSON.stringify(output)?.slice(0, 200)}) where an error was expected`);
}

/** Runs each example with `run`: one problem per example whose call fails or whose output differs from the declared one. */
export async function exampleIssues(tool: ToolManifest, run: (args: Record<string, unknown>) => Promise<unknown>): Promise<ErrorDetail[]> {
  const issues: ErrorDetail[] = [];
  for (const [i, example] of tool.examples.entries()) {
    try {
      const output = await run(example.arguments as Record<string, unknown>);
      if (example.output !== undefined && !isDeepStrictEqual(output, example.output)) {
        issues.push({ path: `/examples/${i}/output`, message: `differs from what run returns: ${JSON.stringify(output)?.slice(0, 300)}` });
      }
    } catch (error) {
      const details = ToolgateError.is(error) && error.details.length > 0 ? `: ${error.details.map((d) => `${d.path} ${d.message}`).join('; ')}` : '';
      issues.push({ path: `/examples/${i}`, message: `run failed: ${(error as Error).message}${details}` });
    }
  }
  return issues;
}

export interface ConformanceOptions {
  /** Run each example and compare with its `output` (off for tools that need the network). */
  runExamples?: boolean;
  minExamples?: number;
  maxExamples?: number;
  /** A pattern the description must match, e.g. one that finds its "do not use it for ..." guidance. */
  descriptionPattern?: RegExp;
}

/**
 * Everything the host would reject or a caller would trip on: an invalid manifest, too few examples,
 * an example whose run fails, differs from its declared output, or breaks the outputSchema.
 */
export async function conformanceIssues(tool: ToolManifest, options: ConformanceOptions = {}): Promise<ErrorDetail[]> {
  const issues = validateManifest(tool);
  const minExamples = options.minExamples ?? 1;
  if (tool.examples.length < minExamples) issues.push({ path: '/examples', message: `has ${tool.examples.length} examples, fewer than ${minExamples}` });
  if (options.maxExamples !== undefined && tool.examples.length > options.maxExamples)
    issues.push({ path: '/examples', message: `has ${tool.examples.length} examples, more than ${options.maxExamples}` });
  if (options.descriptionPattern && !options.descriptionPattern.test(tool.description)) issues.push({ path: '/description', message: `does not match ${options.descriptionPattern}` });
  if (options.runExamples === false || issues.length > 0) return issues;
  issues.push(...(await exampleIssues(tool, (args) => runTool(tool, args))));
  return issues;
}

/** Helpers over one plugin's tools, by name: run them as the host would and check them all. */
export function toolTester<Tool extends { name: string }>(tools: readonly Tool[]) {
  const byName = (name: string): ToolManifest => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool named ${name}`);
    return tool as unknown as ToolManifest;
  };
  return {
    byName,
    call: (name: string, args: Record<string, unknown>, ctx?: ToolContext) => runTool(byName(name), args, ctx) as Promise<Record<string, unknown>>,
    failure: (name: string, args: Record<string, unknown>, ctx?: ToolContext) => toolErrorOf(byName(name), args, ctx),
    /** Problems per tool name; `{}` when every tool conforms. */
    async conformance(options: ConformanceOptions = {}): Promise<Record<string, ErrorDetail[]>> {
      const problems: Record<string, ErrorDetail[]> = {};
      for (const tool of tools) {
        const issues = await conformanceIssues(tool as unknown as ToolManifest, options);
        if (issues.length > 0) problems[tool.name] = issues;
      }
      return problems;
    },
  };
}
