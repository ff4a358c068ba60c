import { carriedOver } from './argument.carrier';

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
});
