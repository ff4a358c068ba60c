import { extractTimeZones } from './time-zone.extractor';

describe('extractTimeZones', () => {
  it('maps IANA names, cities and abbreviations to IANA zones', () => {
    expect(extractTimeZones('Europe/Berlin, New York, Tokyo, PST and UTC').map((z) => z.zones)).toEqual([['Europe/Berlin'], ['America/New_York'], ['Asia/Tokyo'], ['America/Los_Angeles'], ['UTC']]);
  });

  it('answers every reading of a shared abbreviation', () => {
    expect(extractTimeZones('9am CST')[0].zones).toEqual(['America/Chicago', 'Asia/Shanghai']);
  });

  it("reads a lower-case city where the words point at a clock, and the asker's own clock", () => {
    expect(extractTimeZones('what time is it in tokyo rn').map((z) => z.zones)).toEqual([['Asia/Tokyo']]);
    expect(extractTimeZones('10:30 in Paris, what time is that for me?', 'America/New_York').map((z) => [z.text, z.zones[0]])).toEqual([
      ['Paris', 'Europe/Paris'],
      ['for me', 'America/New_York'],
    ]);
    expect(extractTimeZones('resolve a date for me', 'Europe/Paris')).toEqual([]);
  });

  it('ignores lower-case words and strings that only look like zones', () => {
    expect(extractTimeZones('paris in the spring, Foo/Bar')).toEqual([]);
  });
});
