import type { JsonSchema } from '@toolgate/sdk';
import { fillArguments } from './argument.filler';

const context = { referenceTime: new Date('2026-06-15T08:00:00Z'), timeZone: 'UTC' };
const text = (description: string) => ({ type: 'string', description });
const schema = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({ type: 'object', properties, required }) as JsonSchema;

describe('short text fields from the phrase they point to', () => {
  it('takes a place after its preposition, the city part for a city field', () => {
    const fill = fillArguments('Show the rainfall forecast in Porto Alegre, Brazil for 4 days', schema({ city: text('The city to forecast.'), days: { type: 'integer' } }, ['city']), context);
    expect(fill.arguments).toEqual({ city: 'Porto Alegre', days: 4 });
  });

  it('splits "City, Country" between a city field and a country field', () => {
    const fill = fillArguments(
      'What is the local time in Osaka, Japan?',
      schema({ location: text('The name of the city.'), country: text('The name of the country.') }, ['location', 'country']),
      context,
    );
    expect(fill.arguments).toEqual({ location: 'Osaka', country: 'Japan' });
  });

  it('keeps "City, ST" whole for a field that asks for the city with its region, a pair of trip ends apart, and a list of them as one call each', () => {
    const trip = schema({ origin: text('Start, as City, State.'), destination: text('End, as City, State.') }, ['origin', 'destination']);
    expect(fillArguments('driving time between Austin, TX, and Tulsa, OK', trip, context).arguments).toEqual({ origin: 'Austin, TX', destination: 'Tulsa, OK' });
    const shops = schema({ location: text('The city and state, e.g. Denver, CO.') }, ['location']);
    expect(fillArguments('bike shops in Austin, TX, and then the same for Boise, ID and Provo, UT', shops, context).each).toEqual([
      { location: 'Austin, TX' },
      { location: 'Boise, ID' },
      { location: 'Provo, UT' },
    ]);
    expect(fillArguments('bike shops in Boise, Idaho', shops, context).each).toBeUndefined();
  });

  it('reads departure and destination from "from … to …" whatever the order of the fields', () => {
    const fill = fillArguments(
      'Book me a train to Lyon from Geneva',
      schema({ destination: text('Where the trip ends.'), departure: text('Where the trip starts.') }, ['destination', 'departure']),
      context,
    );
    expect(fill.arguments).toEqual({ destination: 'Lyon', departure: 'Geneva' });
  });

  it('gives each of two fields the name it fits when one fits both: the field with less to lose waits', () => {
    const gig = schema({ singer: text('Name of the singer.'), location: text('City of the show.') }, ['singer', 'location']);
    expect(fillArguments('two seats for a show of Nina Simone in Kansas City', gig, context).arguments).toEqual({ singer: 'Nina Simone', location: 'Kansas City' });
  });

  it('does not read the kind of a person as the person: "a chess player, Judit Polgar"', () => {
    const rank = schema({ player_name: text('Name of the player.') }, ['player_name']);
    expect(fillArguments('the rating of a Chess player, Judit Polgar', rank, context).arguments).toEqual({ player_name: 'Judit Polgar' });
  });

  it('reads "from my home in A to the office in B" as the two ends of the trip', () => {
    const commute = schema({ origin: text('Where the trip starts.'), destination: text('Where the trip ends.') }, ['origin', 'destination']);
    expect(fillArguments('the bus from my flat in Leith to the office in Gorgie', commute, context).arguments).toEqual({ origin: 'Leith', destination: 'Gorgie' });
  });

  it('gives the sides of a conversion the names after "from" and "to"', () => {
    const translate = schema({ text: text('What to translate.'), source_language: text('The language of the text.'), target_language: text('The language wanted.') }, [
      'source_language',
      'target_language',
    ]);
    expect(fillArguments('put this note from Dutch into Polish', translate, context).arguments).toMatchObject({ source_language: 'Dutch', target_language: 'Polish' });
  });

  it('gives a year field years, never an amount of money', () => {
    const growth = schema({ year1: { type: 'integer' }, year2: { type: 'integer' }, year1_sales: { type: 'number' }, year2_sales: { type: 'number' } }, [
      'year1',
      'year2',
      'year1_sales',
      'year2_sales',
    ]);
    expect(fillArguments('sales grew from $2M in 2017 to $2.6M in 2018', growth, context).arguments).toEqual({ year1: 2017, year2: 2018, year1_sales: 2_000_000, year2_sales: 2_600_000 });
  });

  it('gives two fields of one kind the names in the order they are written', () => {
    const fill = fillArguments(
      'Compare the head-to-head record of Ajax Amsterdam and Celtic Glasgow',
      schema({ team_a: text('The first team.'), team_b: text('The second team.') }, ['team_a', 'team_b']),
      context,
    );
    expect(fill.arguments).toEqual({ team_a: 'Ajax Amsterdam', team_b: 'Celtic Glasgow' });
  });

  it('takes the word the field’s own noun qualifies, and a code written after it', () => {
    const fill = fillArguments(
      'Play a blues scale in drop tuning beginning at the note F3',
      schema({ tuning_type: text('Type of the tuning.'), root_note: text('The first note, in pitch notation.') }, ['tuning_type', 'root_note']),
      context,
    );
    expect(fill.arguments).toEqual({ tuning_type: 'drop', root_note: 'F3' });
  });

  it('takes one of the examples the description gives when the text names it', () => {
    const fill = fillArguments(
      'Suggest a dinner with lots of vegetables, gluten-free please',
      schema({ course: text('The course.'), diet: text('Dietary need such as vegan, gluten-free or halal.') }, ['course']),
      context,
    );
    expect(fill.arguments.diet).toBe('gluten-free');
  });

  it('drops the field’s own noun from a name ("Surgeon Ada Park" for the surgeon’s name)', () => {
    const fill = fillArguments('How many operations has Surgeon Ada Park done?', schema({ name: text('The full name of the surgeon.') }, ['name']), context);
    expect(fill.arguments).toEqual({ name: 'Ada Park' });
  });

  it('prefers for a field the name that ends on its own noun, and reads a "type of" field as a kind, not a name', () => {
    const ranking = schema({ team: text('The name of the team.'), league: text('The name of the league.') }, ['team', 'league']);
    expect(fillArguments('Show the standing of Real Betis in Segunda League.', ranking, context).arguments).toEqual({ team: 'Real Betis', league: 'Segunda League' });
    const career = schema({ discipline: text('Type of sport the athlete competes in.'), athlete_name: text('Name of the athlete.') }, ['discipline', 'athlete_name']);
    expect(fillArguments('List the titles won by the swimmer Kaylee McKeown.', career, context).arguments.athlete_name).toBe('Kaylee McKeown');
  });

  it('keeps a capitalised last word that is the field’s own noun: it is part of the name ("Eredivisie League" for a league)', () => {
    const standings = schema({ league: text('The league.') }, ['league']);
    expect(fillArguments('standings of the Eredivisie League this year', standings, context).arguments).toEqual({ league: 'Eredivisie League' });
  });

  it('never makes a value up: no name in the text leaves the field missing', () => {
    const fill = fillArguments('what will the weather be like tomorrow?', schema({ city: text('The city.') }, ['city']), context);
    expect(fill.arguments.city).toBeUndefined();
    expect(fill.missing.map((m) => m.path)).toEqual(['/city']);
  });

  it('asks when one field gets two names of equal standing', () => {
    const fill = fillArguments('Is it colder in Oslo or in Bergen?', schema({ city: text('The city.') }, ['city']), context);
    expect(fill.ambiguous).toEqual([{ path: '/city', options: ['Oslo', 'Bergen'] }]);
  });

  it('does not read a sentence’s first word or a verb as a name', () => {
    const fill = fillArguments('Find hotels near the station', schema({ location: text('The location.') }, ['location']), context);
    expect(fill.arguments.location).toBeUndefined();
  });

  it('leaves an optional field empty on weak evidence', () => {
    const fill = fillArguments('Rank the players of Benfica by goals', schema({ club: text('The club.'), league: text('Optional league.') }, ['club']), context);
    expect(fill.arguments).toEqual({ club: 'Benfica' });
  });
});

describe('numbers without a pointer', () => {
  it('gives unpointed required numbers the numbers left in written order', () => {
    const fill = fillArguments('Find the greatest common divisor of 84 and 36', schema({ a: { type: 'integer' }, b: { type: 'integer' } }, ['a', 'b']), context);
    expect(fill.arguments).toEqual({ a: 84, b: 36 });
  });

  it('reads a spelled count as the value of the field named for what it counts, and of no other', () => {
    const stay = schema({ num_guests: { type: 'integer', description: 'Guests.' } }, ['num_guests']);
    expect(fillArguments('a room at the Ritz for three guests', stay, context).arguments).toEqual({ num_guests: 3 });
    // "two numbers" counts the fields; "two tones" is not a frequency.
    const pair = schema({ value1: { type: 'integer' }, value2: { type: 'integer' } }, ['value1', 'value2']);
    expect(fillArguments('the least common multiple of two values, 12 and 18', pair, context).arguments).toEqual({ value1: 12, value2: 18 });
    const tones = schema({ low_tone_frequency: { type: 'number', description: 'Frequency of the low tone in Hz.' } }, ['low_tone_frequency']);
    expect(fillArguments('the beat between two tones', tones, context).arguments).toEqual({});
  });

  it('gives a year field the year written, as a number or as text, and a season its range of years', () => {
    const census = schema({ region: text('The region.'), year: { type: 'integer', description: 'Census round.' } }, ['region', 'year']);
    expect(fillArguments('the census of Bavaria in 1987', census, context).arguments).toEqual({ region: 'Bavaria', year: 1987 });
    const league = schema({ club: text('The club.'), season: text('The season, usually two years.'), report_year: text('Year of the report.') }, ['club', 'season']);
    expect(fillArguments('goals scored by Ajax in the 1994-95 season', league, context).arguments).toMatchObject({ club: 'Ajax', season: '1994-95' });
    expect(fillArguments('the annual report for 2024', schema({ report_year: text('Year of the report.') }, ['report_year']), context).arguments).toEqual({ report_year: '2024' });
  });

  it('reads the other end of a trip as a place when one end is a place field', () => {
    const ride = schema({ start: text('The starting point of the ride.'), destination: text('The destination of the ride.') }, ['start', 'destination']);
    expect(fillArguments('book a taxi ride from Porto to Braga', ride, context).arguments).toEqual({ start: 'Porto', destination: 'Braga' });
  });

  it('reads a period written in words as the count of a field that counts time, when it converts exactly', () => {
    const forecast = schema({ city: text('The city.'), days: { type: 'integer', description: 'Days ahead.' } }, ['city', 'days']);
    expect(fillArguments('pollen forecast for Ghent over the coming fortnight', forecast, context).arguments).toEqual({ city: 'Ghent', days: 14 });
    const trend = schema({ span: { type: 'integer', description: 'Span in years.' } }, ['span']);
    expect(fillArguments('the rainfall trend over the past century', trend, context).arguments).toEqual({ span: 100 });
    // A month has no exact number of days: the question stands.
    expect(fillArguments('pollen forecast for Ghent for the next month', forecast, context).missing.map((m) => m.path)).toEqual(['/days']);
  });

  it('reads "from rest" or "dropped" as a starting speed of zero, and nothing else as one', () => {
    const motion = schema({ initial_speed: { type: 'number' }, time: { type: 'number' } }, ['initial_speed', 'time']);
    expect(fillArguments('a sled leaves from rest and slides for 6 s', motion, context).arguments).toEqual({ initial_speed: 0, time: 6 });
    expect(fillArguments('a stone dropped at an initial speed of 3 m/s falls for 6 s', motion, context).arguments).toEqual({ initial_speed: 3, time: 6 });
    expect(fillArguments('a sled slides downhill for 6 s', motion, context).arguments.initial_speed).toBeUndefined();
  });

  it('reads a percentage as a fraction for a rate the description does not call a percentage', () => {
    const rate = schema({ rate: { type: 'number', description: 'The yearly rate.' }, share: { type: 'number', description: 'Share in percent.' } }, ['rate']);
    expect(fillArguments('a rate of 3.5% and a share of 40%', rate, context).arguments).toEqual({ rate: 0.035, share: 40 });
  });

  it('does not read "per year" as the value of a "…_per_year" field', () => {
    const fill = fillArguments(
      'Grow 500 for 8 years',
      schema({ amount: { type: 'integer' }, years: { type: 'integer', description: 'How many years.' }, splits_per_year: { type: 'integer' } }, ['amount', 'years']),
      context,
    );
    expect(fill.arguments).toEqual({ amount: 500, years: 8 });
  });
});
