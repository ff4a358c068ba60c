import { type CostContext, executePlanCost, runTaskCost, searchToolsCost } from '../graphql/operation.costs';
import { DEFAULT_SEARCH_K } from './meta-tools.schemas';

/** What the protocol's own methods (initialize, tools/list, ping, ...) cost: a field's worth. */
const PROTOCOL_COST = 1;

/** One JSON-RPC message, priced like the GraphQL operation that does the same work. */
function messageCost(message: unknown, context: CostContext): number {
  const { method, params } = (message && typeof message === 'object' ? message : {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (method !== 'tools/call' || !params || typeof params !== 'object') return PROTOCOL_COST;
  const args = (params.arguments && typeof params.arguments === 'object' ? params.arguments : {}) as Record<string, unknown>;
  switch (params.name) {
    case 'search_tools':
      return searchToolsCost({ args: { input: { k: DEFAULT_SEARCH_K, ...args } }, childComplexity: 1, context });
    case 'call_tool':
      return executePlanCost({ args: { plan: { steps: [args] } }, childComplexity: 1 });
    case 'run_task':
      return runTaskCost({ args: { task: args }, childComplexity: 1, context });
    default:
      return PROTOCOL_COST;
  }
}

/** The cost units an MCP request body spends from the caller's rate budget (a batch: each of its messages). */
export function mcpRequestCost(body: unknown, context: CostContext): number {
  return (Array.isArray(body) ? body : [body]).reduce((sum: number, message) => sum + messageCost(message, context), 0);
}
