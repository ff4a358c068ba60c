import { bindingTo, isBinding, linkBySchema, parseBinding } from './schema.linker';

describe('schema linking', () => {
  const search = { id: 's1', outputSchema: { type: 'object', properties: { flight_id: { type: 'string' }, price: { type: 'number' }, 'a/b': { type: 'string' } } } };
  const weather = { id: 's2', outputSchema: { type: 'object', properties: { celsius: { type: 'number' }, price: { type: 'integer' } } } };

  it('binds an input to a same-named compatible output of an earlier step', () => {
    const links = linkBySchema({ type: 'object', properties: { flightId: { type: 'string' }, city: { type: 'string' } } }, [search], new Set());
    expect(links).toEqual([{ input: 'flightId', fromStep: 's1', outputPath: ['flight_id'] }]);
  });

  it('prefers the nearest producer, accepts number/integer, refuses incompatible types and filled fields', () => {
    expect(linkBySchema({ type: 'object', properties: { price: { type: 'number' } } }, [search, weather], new Set())).toEqual([{ input: 'price', fromStep: 's2', outputPath: ['price'] }]);
    expect(linkBySchema({ type: 'object', properties: { price: { type: 'string' } } }, [search, weather], new Set())).toEqual([]);
    expect(linkBySchema({ type: 'object', properties: { price: { type: 'number' } } }, [search], new Set(['price']))).toEqual([]);
  });

  it('writes and reads bindings as steps.<id>.output followed by an escaped JSON pointer', () => {
    const binding = bindingTo('s1', ['a/b', 'c~d']);
    expect(binding).toEqual({ $ref: 'steps.s1.output/a~1b/c~0d' });
    expect(isBinding(binding)).toBe(true);
    expect(parseBinding(binding)).toEqual({ step: 's1', pointer: '/a~1b/c~0d' });
    expect(parseBinding({ $ref: 'steps.s2.output./celsius' })).toEqual({ step: 's2', pointer: '/celsius' });
    expect(parseBinding({ $ref: 'steps.s2.output' })).toEqual({ step: 's2', pointer: '' });
    expect(parseBinding({ $ref: 'outputs.s2' })).toBeNull();
    expect(isBinding({ $ref: 'x', other: 1 })).toBe(false);
  });
});
