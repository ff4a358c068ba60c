import { spreadParts } from './part.spreader';

describe('spreadParts', () => {
  const required = ['company', 'year'];

  it('starts a call where a part gives a field another value, and fills each call from the nearest one', () => {
    const spread = spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { year: 2018 } }], required);
    expect(spread?.each).toEqual([
      { company: 'Dara', year: 2019 },
      { company: 'Dara', year: 2018 },
    ]);
    expect(spread?.arguments).toEqual({ company: 'Dara' });
  });

  it('keeps parts that add to each other as one call (undefined: fill them as one text)', () => {
    expect(spreadParts([{ arguments: { company: 'Dara' } }, { arguments: { year: 2018 } }], required)).toBeUndefined();
    expect(spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { year: 2019 } }], required)).toBeUndefined();
  });

  it('merges a part with nothing new into the call before it', () => {
    const spread = spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: {} }, { arguments: { year: 2020 } }], required);
    expect(spread?.each).toHaveLength(2);
  });

  it('never lets a guessed or defaulted value start a call', () => {
    expect(spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { company: 'instead', year: 2019 }, guessed: ['company'] }], required)).toBeUndefined();
    expect(spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { company: 'Dara', year: 10 }, defaulted: ['year'] }], required)).toBeUndefined();
  });

  it('starts a call where a part guesses a name for a field the call before guessed otherwise, never on a plain guess', () => {
    const heat = (substance: string) => ({ arguments: { substance, year: 2019 }, guessed: ['substance'] });
    expect(spreadParts([heat('water'), heat('Aluminium')], ['substance', 'year'])?.each).toEqual([
      { substance: 'water', year: 2019 },
      { substance: 'Aluminium', year: 2019 },
    ]);
    expect(spreadParts([heat('Jurassic'), heat('took place')], ['substance', 'year'])).toBeUndefined();
  });

  it('gives up when a part is unsure of a required field, or a call would lack one', () => {
    expect(spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { year: 2018 }, ambiguous: [{ path: '/company', options: ['A', 'B'] }] }], required)).toBeUndefined();
    expect(spreadParts([{ arguments: { year: 2019 } }, { arguments: { year: 2018 } }], required)).toBeUndefined();
  });

  it('gives a call an optional value of another call only when it asks the same again', () => {
    const parts = (asksTheSame: boolean) => [{ arguments: { company: 'Dara', year: 2019, detailed: true } }, { arguments: { company: 'Acme', year: 2018 }, asksTheSame }];
    expect(spreadParts(parts(false), required)?.each).toEqual([
      { company: 'Dara', year: 2019, detailed: true },
      { company: 'Acme', year: 2018 },
    ]);
    expect(spreadParts(parts(true), required)?.each).toEqual([
      { company: 'Dara', year: 2019, detailed: true },
      { company: 'Acme', year: 2018, detailed: true },
    ]);
  });

  it("expands a part's own list within its call", () => {
    const spread = spreadParts([{ arguments: { company: 'Dara', year: 2019 } }, { arguments: { company: 'Acme' }, each: [{ year: 2018 }, { year: 2017 }] }], required);
    expect(spread?.each).toEqual([
      { company: 'Dara', year: 2019 },
      { company: 'Acme', year: 2018 },
      { company: 'Acme', year: 2017 },
    ]);
  });
});
