import { COST, type CostContext } from '../graphql/operation.costs';
import { mcpRequestCost } from './mcp-request.costs';

const context: CostContext = { defaultK: 10, maxK: 50, maxSteps: 20, maxReplans: 2, defaultRunLimit: 50 };
const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('mcpRequestCost', () => {
  it('prices each meta-tool like the GraphQL operation that does the same work', () => {
    expect(mcpRequestCost(call('search_tools', { query: 'x', k: 5 }), context)).toBe(COST.retrieval + 5);
    expect(mcpRequestCost(call('search_tools', { query: 'x' }), context)).toBe(COST.retrieval + 8);
    expect(mcpRequestCost(call('search_tools', { query: 'x', k: 5, images: [{}, {}] }), context)).toBe(COST.retrieval + 2 * COST.image + 5);
    expect(mcpRequestCost(call('call_tool', { id: 'a/b', arguments: {} }), context)).toBe(COST.toolCall + 1);
    expect(mcpRequestCost(call('run_task', { text: 'do it' }), context)).toBe(3 * (COST.retrieval + COST.planning) + 3 * 20 * COST.toolCall + 1);
  });

  it('charges protocol methods and garbage a unit each, and a batch the sum of its messages', () => {
    expect(mcpRequestCost({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, context)).toBe(1);
    expect(mcpRequestCost('garbage', context)).toBe(1);
    expect(mcpRequestCost([call('call_tool', {}), call('call_tool', {}), null], context)).toBe(2 * (COST.toolCall + 1) + 1);
  });
});
