import type { JsonSchema } from '@toolgate/sdk';
import { fillArguments } from './argument.filler';

const context = { referenceTime: new Date('2026-06-15T08:00:00Z'), timeZone: 'UTC' };
const schema = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({ type: 'object', properties, required }) as JsonSchema;
const numbers = (type = 'number', description = 'The numbers.') => ({ type: 'array', items: { type }, description });

describe('lists of numbers', () => {
  it('takes an inline array, or three or more numbers written as a list', () => {
    const average = schema({ numbers: numbers('integer') }, ['numbers']);
    expect(fillArguments('Calculate the average of the list [12, 15, 18, 20].', average, context).arguments).toEqual({ numbers: [12, 15, 18, 20] });
    expect(fillArguments('scores: 85, 90, 88 and 92', average, context).arguments).toEqual({ numbers: [85, 90, 88, 92] });
  });

  it('leaves the numbers beside the list to the scalar fields; two loose numbers are a list only where the list is all the tool counts', () => {
    const histogram = schema({ data: numbers('number', 'The data.'), bins: { type: 'integer', description: 'Number of bins.' } }, ['data', 'bins']);
    expect(fillArguments('a histogram of 85, 90, 88, 92, 86 with 5 bins', histogram, context).arguments).toEqual({ data: [85, 90, 88, 92, 86], bins: 5 });
    expect(fillArguments('the average of 4 and 6', schema({ numbers: numbers() }, ['numbers']), context).arguments).toEqual({ numbers: [4, 6] });
    const fill = fillArguments('a histogram of 4 and 6', histogram, context);
    expect(fill.arguments.data).toBeUndefined();
  });

  it('never puts decimals in an integer list, and asks when one field is offered two lists', () => {
    const counts = schema({ counts: numbers('integer', 'Counts.') }, ['counts']);
    expect(fillArguments('counts of 1.5, 2.5 and 3.5', counts, context).arguments).toEqual({});
    const fill = fillArguments('compare [1, 2, 3] with [4, 5, 6]', schema({ values: numbers() }, ['values']), context);
    expect(fill.ambiguous).toEqual([
      {
        path: '/values',
        options: [
          [1, 2, 3],
          [4, 5, 6],
        ],
      },
    ]);
  });

  it('gives two list fields the list each one is named by', () => {
    const fitness = schema({ weights: numbers('number', 'Weights.'), values: numbers('number', 'Values.') }, ['weights', 'values']);
    expect(fillArguments('with values [3, 4, 5] and weights [0.2, 0.3, 0.5]', fitness, context).arguments).toEqual({ values: [3, 4, 5], weights: [0.2, 0.3, 0.5] });
  });
});
