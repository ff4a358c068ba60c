import type { JsonSchema } from '@toolgate/sdk';
import { companionEdges } from './companion-edges.builder';
import { ToolGraph } from './tool.graph';

const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({ type: 'object', properties, required });
const search = { id: 'hotels/search', inputSchema: object({ city: { type: 'string' } }), outputSchema: object({ hotel_id: { type: 'string' } }) };
const book = {
  id: 'hotels/book',
  inputSchema: object({ hotel_id: { type: 'string' }, guest: { type: 'string' } }, ['hotel_id', 'guest']),
  outputSchema: object({ booking: { type: 'string' } }),
  companions: ['hotels/search', 'notify/sms', 'ghost/tool'],
};
const sms = { id: 'notify/sms', inputSchema: object({ text: { type: 'string' } }), outputSchema: object({}), companions: ['hotels/book'] };

describe('companionEdges', () => {
  it('puts first the companion whose output fills an input of the tool, and after it one that fills none', () => {
    expect(companionEdges([search, book, sms])).toEqual([
      { source: 'hotels/book', target: 'notify/sms' },
      { source: 'hotels/search', target: 'hotels/book' },
    ]);
  });

  it('leaves out a companion the catalog does not have, and a tool naming itself', () => {
    expect(companionEdges([{ ...book, companions: ['ghost/tool', 'hotels/book'] }])).toEqual([]);
  });
});

describe('ToolGraph.redeclare', () => {
  it('makes the given edges the declared ones and keeps what runs taught', () => {
    const graph = ToolGraph.fromEdges([{ source: 'a/x', target: 'a/y' }]);
    graph.observe(['a/y', 'a/z']);
    graph.redeclare([{ source: 'a/y', target: 'a/z' }]);
    expect(graph.toJSON()).toEqual([{ source: 'a/y', target: 'a/z', declared: true, observed: 1 }]);
    graph.redeclare([]);
    expect(graph.toJSON()).toEqual([{ source: 'a/y', target: 'a/z', declared: false, observed: 1 }]);
  });
});
