import { extractCurrencies, extractNumbers, extractUnits } from './number.extractor';

describe('extractNumbers', () => {
  it('reads "6 feet 2 inches" as one length in inches', () => {
    const [height] = extractNumbers('he is 6 feet 2 inches tall');
    expect([height.value, height.unit?.text, height.text]).toEqual([74, 'inches', '6 feet 2 inches']);
    expect(extractNumbers('5 ft and 11 in').map((n) => n.value)).toEqual([71]);
    expect(extractNumbers('6 feet, then 2 miles').map((n) => n.value)).toEqual([6, 2]);
  });

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

  it('scales an amount after a currency sign by its letter, and shares no currency a later amount wrote before itself', () => {
    const found = extractNumbers('sales of €2.5M in 2021 and $3B in 2022, a $40k bonus');
    expect(found.map((n) => [n.value, n.currency?.code])).toEqual([
      [2_500_000, 'EUR'],
      [2021, undefined],
      [3_000_000_000, 'USD'],
      [2022, undefined],
      [40_000, 'USD'],
    ]);
    expect(extractNumbers('5 or 6 dollars').map((n) => n.currency?.code)).toEqual(['USD', 'USD']);
  });

  it('reads scientific notation, never an exponent as a quantity, and compound units whole', () => {
    const found = extractNumbers('charges of 1.6e-19 and -3E+2, accelerating at 9.8 m/s^2 (x^2 grows), heat capacity 5J/K, 12 meters/second, 0.5 g/mol');
    expect(found.map((n) => [n.value, n.unit?.text])).toEqual([
      [1.6e-19, undefined],
      [-300, undefined],
      [9.8, 'm/s^2'],
      [5, 'J/K'],
      [12, 'meters/second'],
      [0.5, 'g/mol'],
    ]);
  });

  it('does not read the coefficient of a variable as an amount', () => {
    expect(extractNumbers('the derivative of 3x^2 + 2x - 1 at 5, with 2 xylophones').map((n) => n.value)).toEqual([1, 5, 2]);
  });

  it('keeps the kelvin reading of "300K" beside the thousands, and none for "300k" or "$300K"', () => {
    const [kelvin, thousands, dollars] = extractNumbers('300K, 300k and $300K');
    expect([kelvin.value, kelvin.kelvin]).toEqual([300000, 300]);
    expect([thousands.value, thousands.kelvin]).toEqual([300000, undefined]);
    expect([dollars.value, dollars.kelvin]).toEqual([300000, undefined]);
  });

  it('keeps both readings of a word that is a unit and a currency', () => {
    const [pounds] = extractNumbers('2.5 pounds');
    expect(pounds.unit?.text).toBe('pounds');
    expect(pounds.currency?.code).toBe('GBP');
  });

  it('reads spelled numbers only where they count something, and "1.2m" as millions only beside a currency', () => {
    expect(extractNumbers('two pounds, half a gallon, twelve inches and the top three').map((n) => [n.value, n.unit?.text])).toEqual([
      [2, 'pounds'],
      [0.5, 'gallon'],
      [12, 'inches'],
      [3, undefined],
    ]);
    expect(extractNumbers('which one is two')).toEqual([]);
    expect(extractNumbers('1.2m INR')[0]).toMatchObject({ value: 1_200_000, currency: { code: 'INR' } });
    expect(extractNumbers('1.2m tall')[0]).toMatchObject({ value: 1.2, unit: { text: 'm' } });
  });

  it('reads superscript areas and units written in capitals, but keeps the case of data sizes', () => {
    expect(extractNumbers('120 m², 10 KM, 5 Mb').map((n) => n.unit?.text)).toEqual(['m²', 'KM', 'Mb']);
    expect(extractNumbers('5 mB')[0].unit).toBeUndefined();
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

  it('takes an arrow as a cue for the target unit', () => {
    const text = '30 psi → bar';
    expect(extractUnits(text, extractNumbers(text)).map((u) => u.text)).toEqual(['psi', 'bar']);
  });

  it('names currencies by code and name, and leaves everyday words alone', () => {
    const text = 'from euros to USD, all top results';
    expect(extractCurrencies(text, extractNumbers(text)).map((c) => c.code)).toEqual(['EUR', 'USD']);
  });
});

describe('extractNumbers: English number words', () => {
  const read = (text: string) => extractNumbers(text).map((n) => n.value);

  it('reads tens, compounds, hundreds and thousands before what they count', () => {
    expect(read('Could you send a ninety dollar payment to Alice?')).toEqual([90]);
    expect(read('I need twenty-five tickets and forty two chairs')).toEqual([25, 42]);
    expect(read('It came to one hundred and five dollars, then two thousand euros')).toEqual([105, 2000]);
    expect(read('nineteen tickets, seventeen dollars')).toEqual([19, 17]);
  });

  it('still reads "one-way" as a count of its word and never takes a number word inside another word', () => {
    expect(read('Find a one-way flight')).toEqual([1]);
    expect(read('the tenth seventeenth anniversary')).toEqual([]);
  });
});
