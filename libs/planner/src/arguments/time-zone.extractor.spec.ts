import { extractTimeZones } from './time-zone.extractor';

describe('extractTimeZones', () => {
  it('maps IANA names, cities and abbreviations to IANA zones', () => {
    expect(extractTimeZones('Europe/Berlin, New York, Tokyo, PST and UTC').map((z) => z.zones)).toEqual([['Europe/Berlin'], ['America/New_York'], ['Asia/Tokyo'], ['America/Los_Angeles'], ['UTC']]);
  });

  it('answers every reading of a shared abbreviation', () => {
    expect(extractTimeZones('9am CST')[0].zones).toEqual(['America/Chicago', 'Asia/Shanghai']);
  });

  it('ignores lower-case words and strings that only look like zones', () => {
    expect(extractTimeZones('paris in the spring, Foo/Bar')).toEqual([]);
  });
});
