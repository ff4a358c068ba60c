import { matchEnum } from './enum.matcher';

describe('matchEnum', () => {
  it('reads "%" as "percent(age)" and "&" as "and"', () => {
    expect(matchEnum('the field goal percentage and the free throw percent', ['field goal %', 'free throw %']).map((m) => m.value)).toEqual(['field goal %', 'free throw %']);
    expect(matchEnum('our R and D spend', ['R&D', 'HR']).map((m) => m.value)).toEqual(['R&D']);
  });

  it('matches values and everyday synonyms', () => {
    expect(matchEnum('sort it descending', ['asc', 'desc']).map((m) => m.value)).toEqual(['desc']);
    expect(matchEnum('which weight units', ['length', 'mass']).map((m) => m.value)).toEqual(['mass']);
    expect(matchEnum('a bar chart', ['line', 'bar']).map((m) => [m.value, m.text])).toEqual([['bar', 'bar chart']]);
  });

  it('matches all-capital values only in capitals', () => {
    expect(matchEnum('get the page', ['GET', 'HEAD'])).toEqual([]);
    expect(matchEnum('send a HEAD request', ['GET', 'HEAD']).map((m) => m.value)).toEqual(['HEAD']);
  });

  it('lets the longer match hide the shorter one inside it', () => {
    expect(matchEnum('count distinct users', ['count', 'count_distinct']).map((m) => m.value)).toEqual(['count_distinct']);
  });

  it('skips spans that are data', () => {
    expect(matchEnum("write 'append this' to a.txt", ['append'], [{ start: 6, end: 19, text: "'append this'" }])).toEqual([]);
  });

  it('matches a value in the other number, and an underscored value by its words in order', () => {
    expect(matchEnum('strength and weakness traits', ['strengths', 'weaknesses']).map((m) => m.value)).toEqual(['strengths', 'weaknesses']);
    expect(matchEnum('price and ratings', ['price', 'rating']).map((m) => m.value)).toEqual(['price', 'rating']);
    expect(matchEnum('avoiding highways and toll roads', ['tolls', 'highways', 'ferries']).map((m) => m.value)).toEqual(['highways', 'tolls']);
    expect(matchEnum('the high and low temperatures and humidity', ['high_low_temperature', 'humidity']).map((m) => m.value)).toEqual(['high_low_temperature', 'humidity']);
    // Short words and words ending in "ss"/"us" keep their one spelling: "bu" is no "bus", "clas" no "class".
    expect(matchEnum('take the bu', ['bus'])).toEqual([]);
    expect(matchEnum('first clas', ['class'])).toEqual([]);
  });
});
