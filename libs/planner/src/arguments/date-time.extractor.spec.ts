import { extractDates } from './date-time.extractor';

// Friday 6 March 2026, 10:00 in New York (EST); clocks there go forward on Sunday 8 March at 02:00.
const FRIDAY = new Date('2026-03-06T15:00:00Z');
const walls = (text: string, reference = FRIDAY, zone = 'America/New_York') => extractDates(text, reference, zone).map((d) => d.walls);

describe('extractDates', () => {
  it('reads the year written after a comma with or without a space, or before the month, and carries it to a later date without one', () => {
    expect(walls('due Sept.9,2027')).toEqual([['2027-09-09T00:00:00']]);
    expect(walls('the 2nd of August,2028')).toEqual([['2028-08-02T00:00:00']]);
    expect(walls('stay from 2027 July 30th to August 2nd')).toEqual([['2027-07-30T00:00:00'], ['2027-08-02T00:00:00']]);
    expect(walls('from Dec 30, 2027 to Jan 2')).toEqual([['2027-12-30T00:00:00'], ['2028-01-02T00:00:00']]);
    expect(extractDates('meet at 9am', FRIDAY, 'America/New_York')[0].timeOnly).toBe(true);
    expect(extractDates('meet tomorrow at 9am', FRIDAY, 'America/New_York')[0].timeOnly).toBeUndefined();
  });

  it('reads numeric dates with slashes, dots or hyphens: year first as year-month-day, otherwise both day-month readings', () => {
    expect(walls('the reading of 2027/11/03')).toEqual([['2027-11-03T00:00:00']]);
    expect(walls('logged 2027.11.03, then')).toEqual([['2027-11-03T00:00:00']]);
    expect(walls('born 23-04-1975')).toEqual([['1975-04-23T00:00:00']]);
    expect(extractDates('on 04.05.2027', FRIDAY, 'America/New_York')[0].walls).toEqual(['2027-04-05T00:00:00', '2027-05-04T00:00:00']);
    expect(walls('release 1.2.3 and build 2027.13.40')).toEqual([]);
  });

  it('reads a day named relative to now and then by its date as one mention of the date written', () => {
    const [restated, ...rest] = extractDates('tickets for next Tuesday, April 14th 2026, please', FRIDAY, 'America/New_York');
    expect(rest).toEqual([]);
    expect(restated).toMatchObject({ text: 'next Tuesday, April 14th 2026', walls: ['2026-04-14T00:00:00'] });
    expect(walls('tomorrow and next Tuesday')).toEqual([['2026-03-07T00:00:00'], ['2026-03-10T00:00:00']]);
  });

  it('resolves relative days and weekdays in the task zone', () => {
    expect(walls('tomorrow')).toEqual([['2026-03-07T00:00:00']]);
    expect(walls('next Friday')).toEqual([['2026-03-13T00:00:00']]);
    expect(walls('Friday')).toEqual([['2026-03-06T00:00:00']]);
    expect(walls('last Tuesday')).toEqual([['2026-03-03T00:00:00']]);
    expect(extractDates('the day after tomorrow', FRIDAY, 'America/New_York')[0]).toMatchObject({ granularity: 'date', phrase: 'the day after tomorrow' });
  });

  it('reads "the 3rd of next month" on the calendar of the task zone', () => {
    expect(walls('the 3rd of next month')).toEqual([['2026-04-03T00:00:00']]);
    expect(walls('the 31st of next month')).toEqual([]);
  });

  it('gives a time the day written after its zone, and a bare time the day of the time it is joined to', () => {
    const [mention] = extractDates('3pm London time tomorrow', FRIDAY, 'America/New_York');
    expect(mention).toMatchObject({ zone: 'Europe/London', walls: ['2026-03-07T15:00:00'], text: '3pm London time tomorrow' });
    expect(walls('21:15 Tokyo time on 2026-06-18')).toEqual([['2026-06-18T21:15:00']]);
    expect(walls('between 9:15 and 17:40 tomorrow')).toEqual([['2026-03-07T09:15:00'], ['2026-03-07T17:40:00']]);
    expect(walls('9am to tomorrow 5pm')).toEqual([['2026-03-06T09:00:00'], ['2026-03-07T17:00:00']]);
  });

  it('joins a date and a time written together, either order', () => {
    expect(walls('tomorrow at 3pm')).toEqual([['2026-03-07T15:00:00']]);
    expect(walls('noon next Friday')).toEqual([['2026-03-13T12:00:00']]);
    expect(walls('March 3rd, 10:30')).toEqual([['2027-03-03T10:30:00']]);
  });

  it('keeps exact hours exact and calendar days calendar-wise across the DST change', () => {
    expect(walls('in 48 hours')).toEqual([['2026-03-08T11:00:00']]);
    expect(walls('2 days from now at 10am')).toEqual([['2026-03-08T10:00:00']]);
    // 02:30 does not exist on 8 March in New York; the wall time stays as written.
    expect(walls('2026-03-08 02:30')).toEqual([['2026-03-08T02:30:00']]);
  });

  it('crosses month ends and leap days', () => {
    expect(walls('tomorrow', new Date('2026-02-28T12:00:00Z'), 'UTC')).toEqual([['2026-03-01T00:00:00']]);
    expect(walls('tomorrow', new Date('2028-02-28T12:00:00Z'), 'UTC')).toEqual([['2028-02-29T00:00:00']]);
    expect(walls('in 1 month', new Date('2026-01-31T12:00:00Z'), 'UTC')).toEqual([['2026-02-28T00:00:00']]);
  });

  it('reads the zone written with a time and resolves "today" on that clock', () => {
    const [tokyo] = extractDates('9am Tokyo time', new Date('2026-06-15T08:00:00Z'), 'Europe/London');
    expect(tokyo).toMatchObject({ zone: 'Asia/Tokyo', zoneExplicit: true, phrase: '9am', walls: ['2026-06-15T09:00:00'] });
  });

  it('keeps an ISO time with an offset as written', () => {
    const [iso] = extractDates('at 2026-03-01T10:00:00Z', FRIDAY, 'America/New_York');
    expect(iso.withOffset).toBe('2026-03-01T10:00:00Z');
  });

  it('answers both readings of a day/month order it cannot tell', () => {
    expect(walls('03/04/2026')).toEqual([['2026-03-04T00:00:00', '2026-04-03T00:00:00']]);
    expect(walls('13/04/2026')).toEqual([['2026-04-13T00:00:00']]);
  });
});
