import { carriedOver, fieldFamilies, groupCarriedOver } from './argument.carrier';

describe('carriedOver', () => {
  const earlier = [[{ company: 'ACME', years: 3 }], [{ year: 1990 }, { year: 2000 }]];

  it('gives a later step what an earlier one was given for the same thing when its words refer back', () => {
    expect(carriedOver('the quick ratio of the same company', 'company_name', earlier)).toEqual(['ACME']);
    expect(carriedOver('the inflation in those years', 'year', earlier)).toEqual([1990, 2000]);
  });

  it('gives nothing when the words do not refer back, or no earlier field is about the same thing', () => {
    expect(carriedOver('the quick ratio of Globex', 'company_name', earlier)).toEqual([]);
    expect(carriedOver('the same again', 'ticker', earlier)).toEqual([]);
  });

  it('reads a definite noun phrase as a reference when an earlier part spoke of that noun, and "he" as one', () => {
    const motion = [[{ initial_velocity: 20, time: 6 }]];
    const before = 'the final velocity of a moving object given initial velocity of 20 m/s and time of 6 seconds';
    expect(carriedOver('compute the total distance covered by the object', 'initial_velocity', motion, { before })).toEqual([20]);
    expect(carriedOver('compute the total distance covered by the car', 'initial_velocity', motion, { before })).toEqual([]);
    expect(carriedOver('the nature of the offenses he committed', 'criminal_name', [[{ criminal_name: 'John Doe' }]])).toEqual(['John Doe']);
  });

  it('carries a field named only by generic words into the field of that very name', () => {
    expect(carriedOver('and where his lab was', 'name', [[{ name: 'Marie Curie' }]])).toEqual(['Marie Curie']);
    expect(carriedOver('and where his lab was', 'name', [[{ id: 'MC-1' }]])).toEqual([]);
  });

  it('carries a list only into a field that takes one', () => {
    const points = [[{ data: [3, 4, 5] }]];
    expect(carriedOver('the mode for these points', 'data', points, { list: true })).toEqual([[3, 4, 5]]);
    expect(carriedOver('the mode for these points', 'data', points)).toEqual([]);
  });

  it('carries a field the later words leave unsaid only under the very same, specific name', () => {
    const integral = [[{ function: 'x^2', a: 1, type: 'definite' }]];
    expect(carriedOver('find the derivative at x=3', 'function', integral, { unsaid: true })).toEqual(['x^2']);
    expect(carriedOver('find the derivative at x=3', 'function', integral)).toEqual([]);
    expect(carriedOver('find the derivative at x=3', 'func', integral, { unsaid: true })).toEqual([]);
    expect(carriedOver('book a table', 'type', integral, { unsaid: true })).toEqual([]);
  });

  it('finds the numbered families among fields', () => {
    expect(fieldFamilies(['city_1', 'city_2', 'units', 'species_a', 'species_b', 'date'])).toEqual([
      ['city_1', 'city_2'],
      ['species_a', 'species_b'],
    ]);
  });

  it('gives a family what an earlier step was run for when the words speak of them together', () => {
    const times = [[{ location: 'Beijing' }, { location: 'Tokyo' }]];
    expect(groupCarriedOver('the time difference between the two cities', ['city_1', 'city_2'], times)).toEqual({ city_1: 'Beijing', city_2: 'Tokyo' });
    expect(groupCarriedOver('the time difference between them', ['city_1', 'city_2'], times)).toEqual({ city_1: 'Beijing', city_2: 'Tokyo' });
    expect(groupCarriedOver('the time difference', ['city_1', 'city_2'], times)).toBeUndefined();
    expect(groupCarriedOver('between the three cities', ['city_1', 'city_2'], [[{ location: 'A' }, { location: 'B' }, { location: 'C' }]])).toBeUndefined();
    // Two fields that vary, neither about cities: no telling which one is meant.
    expect(
      groupCarriedOver(
        'compare both',
        ['city_1', 'city_2'],
        [
          [
            { origin: 'A', goal: 'B' },
            { origin: 'C', goal: 'D' },
          ],
        ],
      ),
    ).toBeUndefined();
  });
});
