import { extractCurrencies, extractNumbers, extractUnits } from './number.extractor';

describe('extractNumbers', () => {
  it('reads units written after the number, as written', () => {
    const found = extractNumbers('5 miles, 3.5 kg, 20°C, -40 °F and 1,200 square feet');
    expect(found.map((n) => [n.value, n.unit?.text])).toEqual([
      [5, 'miles'],
      [3.5, 'kg'],
      [20, '°C'],
      [-40, '°F'],
      [1200, 'square feet'],
    ]);
  });

  it('reads currencies by symbol, code or name and scales 10k / 1.5 million', () => {
    const found = extractNumbers('$1,200.50 or €75, 100 USD, 250 Swiss francs, 10k JPY and 1.5 million yen');
    expect(found.map((n) => [n.value, n.currency?.code])).toEqual([
      [1200.5, 'USD'],
      [75, 'EUR'],
      [100, 'USD'],
      [250, 'CHF'],
      [10000, 'JPY'],
      [1500000, 'JPY'],
    ]);
  });

  it('keeps both readings of a word that is a unit and a currency', () => {
    const [pounds] = extractNumbers('2.5 pounds');
    expect(pounds.unit?.text).toBe('pounds');
    expect(pounds.currency?.code).toBe('GBP');
  });

  it('shares the unit of "5 or 6 feet" with the first number', () => {
    const [five, six] = extractNumbers('5 or 6 feet');
    expect(five).toMatchObject({ value: 5, shared: true, unit: { text: 'feet' } });
    expect(six).toMatchObject({ value: 6, unit: { text: 'feet' } });
  });
});

describe('extractUnits / extractCurrencies', () => {
  it('names standalone units after "to"/"into", but not the preposition "in" or letters without a cue', () => {
    const text = 'convert 5 km to m, in total into Fahrenheit; s and h';
    const units = extractUnits(text, extractNumbers(text));
    expect(units.map((u) => [u.text, u.attached])).toEqual([
      ['km', true],
      ['m', false],
      ['Fahrenheit', false],
    ]);
  });

  it('names currencies by code and name, and leaves everyday words alone', () => {
    const text = 'from euros to USD, all top results';
    expect(extractCurrencies(text, extractNumbers(text)).map((c) => c.code)).toEqual(['EUR', 'USD']);
  });
});
