import { checkAgainstSchema } from '@toolgate/sdk';
import { dropNullOptionals, toStrictSchema } from './strict-schema.converter';

describe('toStrictSchema', () => {
  const weather = {
    type: 'object',
    title: 'args',
    properties: { city: { type: 'string', default: 'Oslo' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
    additionalProperties: false,
  };

  it('makes optional fields required-and-nullable and drops only annotations', () => {
    expect(toStrictSchema(weather)).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] } },
      required: ['city', 'unit'],
      additionalProperties: false,
    });
  });

  it.each([
    ['an open object', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    ['a keyword strict mode does not enforce', { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'], additionalProperties: false }],
    ['an optional field that already accepts null', { type: 'object', properties: { a: { type: ['string', 'null'] } }, additionalProperties: false }],
    ['an optional field inside anyOf', { anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }] }],
    ['a local $ref', { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, required: ['a'], additionalProperties: false, $defs: { x: { type: 'string' } } }],
  ])('leaves %s non-strict rather than loosen it', (_, schema) => {
    expect(toStrictSchema(schema)).toBeNull();
  });

  it('turns strict-mode nulls back into absence, so the original schema judges the arguments', () => {
    const nested = {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' }, note: { type: 'string' } }, required: ['n'], additionalProperties: false } } },
      required: ['items'],
      additionalProperties: false,
    };
    const args = dropNullOptionals(nested, {
      items: [
        { n: 1, note: null },
        { n: 2, note: 'x' },
      ],
    });
    expect(args).toEqual({ items: [{ n: 1 }, { n: 2, note: 'x' }] });
    expect(checkAgainstSchema(nested, args)).toEqual([]);
    // A null in a required field stays, and the original schema rejects it.
    expect(checkAgainstSchema(weather, dropNullOptionals(weather, { city: null }))).toEqual([{ path: '/city', message: 'must be string' }]);
  });
});
