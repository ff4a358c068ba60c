import { ToolGraph } from '@toolgate/planner';
import type { CatalogService } from '@toolgate/registry';
import type { JsonSchema } from '@toolgate/sdk';
import { Subject } from 'rxjs';
import { DeclaredRelationsSubscriber } from './declared-relations.subscriber';

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });
const tool = (id: string, input: JsonSchema, output: JsonSchema, companions?: string[]) => ({ id, active: { descriptor: { inputSchema: input, outputSchema: output, companions } } });

describe('DeclaredRelationsSubscriber', () => {
  it("declares the active versions' companions in the planner's graph, and again after each catalog change", () => {
    const changes = new Subject<void>();
    let tools = [tool('shop/find', object({ q: { type: 'string' } }), object({ item_id: { type: 'string' } })), tool('shop/order', object({ item_id: { type: 'string' } }), object({}), ['shop/find'])];
    const catalog = { changes$: changes.asObservable(), activeTools: () => tools };
    const graph = new ToolGraph();
    const subscriber = new DeclaredRelationsSubscriber(catalog as unknown as CatalogService, graph);
    subscriber.onModuleInit();
    expect(graph.declaredNeighbours('shop/order', 'before')).toEqual(['shop/find']);
    tools = [tools[0], tool('shop/order', object({ item_id: { type: 'string' } }), object({}))];
    changes.next();
    expect(graph.declaredNeighbours('shop/order', 'before')).toEqual([]);
    subscriber.onModuleDestroy();
  });
});
