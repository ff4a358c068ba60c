import type { McpCallResult, McpConnections } from '@toolgate/registry';
import { ErrorCode, parseToolRef, ToolgateError } from '@toolgate/sdk';
import type { HealthVerdict, ToolHealthProbe } from '../health/tool-health.probe';
import { type Invocation, ToolInvoker } from '../runtime/tool-invoker.port';

const MAX_ERROR_TEXT = 500;

const textOf = (content: unknown[] | undefined): string =>
  (content ?? []).flatMap((block) => (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text' ? [String((block as { text?: unknown }).text ?? '')] : [])).join('\n');

/**
 * A step's output from an MCP result: `structuredContent` for a tool that declared an outputSchema
 * (the runner checks it against that schema), else the typed content blocks. A result the server
 * flagged `isError` is the tool failing, with the server's text as the message.
 */
export function outputOf(toolId: string, { result, structured }: McpCallResult): unknown {
  if (result.isError === true) {
    const text = textOf(result.content).trim() || 'no message';
    throw new ToolgateError(ErrorCode.TOOL_FAILED, `${toolId} reported an error: ${text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text}`);
  }
  if (!structured) return { content: Array.isArray(result.content) ? result.content : [] };
  if (result.structuredContent !== undefined) return result.structuredContent;
  // The spec asks servers to repeat structured results as JSON text for older clients; take that when it is all there is.
  try {
    return JSON.parse(textOf(result.content));
  } catch {
    throw new ToolgateError(ErrorCode.TOOL_FAILED, `${toolId} declares an outputSchema but answered without structuredContent`);
  }
}

/**
 * Calls `mcp` tools on their server through McpConnections (the tenant's session); cancellation
 * (the invocation's signal) reaches the server as `notifications/cancelled`, progress becomes span events and STEP_PROGRESS run events.
 */
export class McpToolInvoker extends ToolInvoker implements ToolHealthProbe {
  constructor(private readonly connections: McpConnections) {
    super();
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    // An MCP tool's namespace is its server's name.
    const { namespace: server = '', name: tool } = parseToolRef(invocation.toolId);
    const timeoutMs = invocation.deadlineAt ? Math.max(1, invocation.deadlineAt - Date.now()) : 3_600_000;
    const answer = await this.connections.call(server, tool, invocation.arguments, {
      tenant: invocation.principal.tenant,
      signal: invocation.signal,
      timeoutMs,
      onProgress: (p) => {
        invocation.span?.addEvent('toolgate.mcp.progress', { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) });
        invocation.onProgress?.(p);
      },
    });
    return outputOf(invocation.toolId, answer);
  }

  check(toolId: string, _version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    return this.connections.ping(parseToolRef(toolId).namespace ?? '', signal);
  }
}
