import type { ExecutionRoute } from '../routing/execution-route.types';
import { McpToolInvoker } from './mcp.tool-invoker';

/** `mcp` tools: calls on their MCP server's connection (see McpConnections in the registry); health is a ping of the server. */
export const mcpExecutionRoute: ExecutionRoute = {
  kind: 'mcp',
  create: ({ mcp }) => {
    const invoker = new McpToolInvoker(mcp);
    return { invoker, probe: invoker };
  },
};
