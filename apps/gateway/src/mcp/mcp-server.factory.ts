import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallToolResult, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { Injectable, Logger } from '@nestjs/common';
import { RunEventBus } from '@toolgate/executor';
import { CatalogService, type Principal } from '@toolgate/registry';
import { type Run, ToolgateError } from '@toolgate/sdk';
import { InputDepthPipe } from '../graphql/input-depth.pipe';
import { ExecutePlanUseCase } from '../use-cases/execute-plan.use-case';
import { RunTaskUseCase } from '../use-cases/run-task.use-case';
import { SearchToolsUseCase } from '../use-cases/search-tools.use-case';
import { asCallToolError, callToolResult, errorResult, runTaskResult, structuredResult, summaryOf } from './meta-tool.results';
import { type CallToolInput, DEFAULT_SEARCH_K, META_TOOL_SCHEMAS, type SearchToolsInput } from './meta-tools.schemas';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  'Toolgate holds a large catalog of tools; you see only those your key may use. Find tools with search_tools, ' +
  'read one with describe_tool (its input schema and examples), then run it with call_tool, or hand a whole task to run_task. ' +
  'Destructive tools wait for a person to approve (status PENDING_APPROVAL).';

/** Every call goes through the executor: these only say so to clients that show hints. */
const RUNS_TOOLS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;
const READS_CATALOG = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * Builds the MCP server one principal talks to (per HTTP request, or per stdio connection): the
 * meta-tools of progressive disclosure, each scoped to that principal through the same use cases
 * GraphQL calls, so validation, grants, approvals, audit and resilience apply unchanged.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('Mcp');
  private readonly depth = new InputDepthPipe();

  constructor(
    private readonly catalog: CatalogService,
    private readonly searchTools: SearchToolsUseCase,
    private readonly executePlan: ExecutePlanUseCase,
    private readonly runTask: RunTaskUseCase,
    private readonly events: RunEventBus,
  ) {}

  create(principal: Principal): McpServer {
    const server = new McpServer({ name: 'toolgate', title: 'Toolgate', version: VERSION }, { instructions: INSTRUCTIONS });
    server.registerTool(
      'search_tools',
      {
        title: 'Search tools',
        description: 'Finds the tools that best fit what you want done, best first, among those you may use. Returns compact hits; describe_tool gives one in full.',
        ...META_TOOL_SCHEMAS.searchTools,
        annotations: READS_CATALOG,
      },
      (args) => this.answer(() => this.search(args, principal)),
    );
    server.registerTool(
      'describe_tool',
      {
        title: 'Describe a tool',
        description: 'One tool in full: its input and output JSON Schemas, examples, risk and version. Use it before call_tool to get the arguments right.',
        ...META_TOOL_SCHEMAS.describeTool,
        annotations: READS_CATALOG,
      },
      ({ id }) => this.answer(async () => this.describe(id, principal)),
    );
    server.registerTool(
      'call_tool',
      {
        title: 'Call a tool',
        description:
          "Runs one tool by id with arguments (validated against its input schema). Returns the tool's output, the run id and status; a destructive tool waits for approval (PENDING_APPROVAL).",
        ...META_TOOL_SCHEMAS.callTool,
        annotations: RUNS_TOOLS,
      },
      (args, ctx) => this.answer(() => this.call(args, principal, ctx)),
    );
    server.registerTool(
      'run_task',
      {
        title: 'Run a task',
        description: 'Plans a task described in words over the tools you may use and runs the plan. Returns the run: its status and every step with its output or error.',
        ...META_TOOL_SCHEMAS.runTask,
        annotations: RUNS_TOOLS,
      },
      ({ text }, ctx) => this.answer(() => this.task(text, principal, ctx)),
    );
    return server;
  }

  /** A Toolgate error is a tool result with its code; anything else is logged and answered as INTERNAL. */
  private async answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ToolgateError)) this.logger.error({ err: error }, 'meta-tool failed');
      return errorResult(error);
    }
  }

  private async search({ query, k, images }: SearchToolsInput, principal: Principal): Promise<CallToolResult> {
    const results = await this.searchTools.execute({ query, k: k ?? DEFAULT_SEARCH_K, images }, principal);
    const hits = results.map(({ tool, hit }) => {
      const descriptor = tool.active?.descriptor;
      return {
        id: tool.id,
        title: descriptor?.title ?? tool.name,
        description: summaryOf(descriptor?.description ?? ''),
        score: hit.score,
        ...(hit.degraded ? { degraded: hit.degraded } : {}),
      };
    });
    return structuredResult({ hits });
  }

  private describe(id: string, principal: Principal): CallToolResult {
    // An id the principal may not discover answers exactly like one that does not exist (CatalogService.resolve).
    const { tool, version } = this.catalog.resolve(id, principal);
    const { descriptor } = version;
    return structuredResult({
      id: tool.id,
      version: version.version,
      title: descriptor.title,
      description: descriptor.description,
      category: descriptor.category,
      tags: descriptor.tags,
      risk: descriptor.permissions.risk,
      requiresApproval: descriptor.permissions.requiresApproval === true || descriptor.permissions.risk === 'destructive',
      inputSchema: descriptor.inputSchema,
      outputSchema: descriptor.outputSchema,
      examples: descriptor.examples.map((e) => ({ query: e.query, arguments: e.arguments, ...(e.output !== undefined ? { output: e.output } : {}) })),
    });
  }

  private async call({ id, arguments: args }: CallToolInput, principal: Principal, ctx: ServerContext): Promise<CallToolResult> {
    // Before the plan validator walks them recursively.
    this.depth.transform(args, { type: 'body', data: 'arguments' });
    const runId = randomUUID();
    const plan = { id: runId, decision: 'USE_TOOLS' as const, steps: [{ id: 'call', tool: id, arguments: args, dependsOn: [], reason: 'call_tool over MCP' }] };
    const run = await this.running(runId, ctx, (signal) => this.executePlan.execute(plan, principal, { signal, runId })).catch((error: unknown) => {
      throw asCallToolError(error);
    });
    return callToolResult(run, principal);
  }

  private async task(text: string, principal: Principal, ctx: ServerContext): Promise<CallToolResult> {
    const runId = randomUUID();
    const run = await this.running(runId, ctx, (signal) => this.runTask.execute({ text, images: [] }, principal, { signal, runId }));
    return runTaskResult(run, principal);
  }

  /**
   * Runs `work` while the request is answered. Cancelling the request (notifications/cancelled, or a
   * closed exchange) cancels the run until it returns; a run paused for approval outlives the request,
   * so the request's own signal, which aborts once it is answered, is never handed to the runner.
   * With a progressToken the client hears of the run as it goes: progress 0 when it starts (the
   * message names the run id, which cancelRun and run(id) take), then one per finished step.
   */
  private async running(runId: string, ctx: ServerContext, work: (signal: AbortSignal) => Promise<Run>): Promise<Run> {
    const abort = new AbortController();
    const cancel = () => abort.abort(ctx.mcpReq.signal.reason);
    if (ctx.mcpReq.signal.aborted) cancel();
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    try {
      return await this.withProgress(runId, ctx, () => work(abort.signal));
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
  }

  private async withProgress(runId: string, ctx: ServerContext, work: () => Promise<Run>): Promise<Run> {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken === undefined) return work();
    let progress = 0;
    let total = 0;
    const notify = (message: string) =>
      ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress, total: Math.max(total, progress), message } })
        // A client that went away misses its progress; the run goes on to its end or its cancellation.
        .catch(() => undefined);
    const subscription = this.events.of(runId).subscribe(({ event }) => {
      if (event.type === 'RUN_STARTED') {
        total = event.run.steps.length;
        void notify(`run ${runId} started: ${total} step(s)`);
      } else if (event.type === 'STEP_FINISHED') {
        progress += 1;
        void notify(`${event.step.id} ${event.step.tool} ${event.step.status}`);
      }
    });
    try {
      return await work();
    } finally {
      subscription.unsubscribe();
    }
  }
}
