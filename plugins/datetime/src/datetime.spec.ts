import { ErrorCode } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { call, failure, conformance } = toolTester(tools);

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

import { Settings } from 'luxon';

it('every datetime tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

const frozen = Date.parse('2025-03-05T10:00:00Z');

describe('datetime/now', () => {
  const realNow = Settings.now;
  beforeEach(() => {
    Settings.now = () => frozen;
  });
  afterEach(() => {
    Settings.now = realNow;
  });

  it('reports the current instant in the requested zone', async () => {
    expect(await call('now', { timeZone: 'Asia/Tokyo' })).toEqual({
      iso: '2025-03-05T19:00:00.000+09:00',
      date: '2025-03-05',
      time: '19:00:00',
      weekday: 'Wednesday',
      timeZone: 'Asia/Tokyo',
      offset: '+09:00',
      epochMs: frozen,
    });
    expect(await call('now', {})).toMatchObject({ timeZone: 'UTC', time: '10:00:00' });
  });

  it('rejects an unknown zone naming the field', async () => {
    await expectInvalid('now', { timeZone: 'Mars/Olympus_Mons' }, '/timeZone');
  });
});

describe('datetime/convert-timezone', () => {
  it('applies daylight saving time of each zone', async () => {
    const output = await call('convert-timezone', { dateTime: '2025-03-30 12:00', fromTimeZone: 'Europe/Paris', toTimeZone: 'UTC' });
    expect(output.target).toMatchObject({ time: '10:00:00', offset: '+00:00' });
    expect(output.differenceHours).toBe(-2);
  });

  it('lets an explicit offset win over fromTimeZone', async () => {
    const output = await call('convert-timezone', { dateTime: '2025-01-01T00:00:00Z', fromTimeZone: 'Asia/Tokyo', toTimeZone: 'America/Los_Angeles' });
    expect(output.target).toMatchObject({ date: '2024-12-31', time: '16:00:00' });
  });

  it('rejects unknown zones and unreadable times with the right path', async () => {
    await expectInvalid('convert-timezone', { dateTime: '2025-01-01T00:00', toTimeZone: 'Europe/Atlantis' }, '/toTimeZone');
    await expectInvalid('convert-timezone', { dateTime: '2025-01-01T00:00', fromTimeZone: 'CEST+9', toTimeZone: 'UTC' }, '/fromTimeZone');
    await expectInvalid('convert-timezone', { dateTime: 'whenever you like', toTimeZone: 'UTC' }, '/dateTime');
  });
});

describe('datetime/resolve-date', () => {
  const referenceTime = '2025-03-05T10:00:00Z';

  it.each([
    ['tomorrow at 9am', 'Asia/Tokyo', '2025-03-06T09:00:00.000+09:00'],
    ['3 days ago', 'UTC', '2025-03-02T10:00:00.000Z'],
    ['March 30 at 9:00', 'Europe/Paris', '2025-03-30T09:00:00.000+02:00'],
    ['call me next friday at noon', 'UTC', '2025-03-14T12:00:00.000Z'],
    ['3pm PST tomorrow', 'UTC', '2025-03-06T23:00:00.000Z'],
  ])('%s (%s)', async (text, timeZone, iso) => {
    const output = (await call('resolve-date', { text, referenceTime, timeZone })) as { start: { iso: string } };
    expect(output.start.iso).toBe(iso);
  });

  it('returns both ends of a range', async () => {
    const output = (await call('resolve-date', { text: 'from Jan 3 to Jan 7', referenceTime })) as { start: { date: string }; end: { date: string } };
    expect([output.start.date, output.end.date]).toEqual(['2026-01-03', '2026-01-07']);
    const past = (await call('resolve-date', { text: 'from Jan 3 to Jan 7', referenceTime, preferFuture: false })) as { start: { date: string } };
    expect(past.start.date).toBe('2025-01-03');
  });

  it('rejects text without a date and a bad zone', async () => {
    await expectInvalid('resolve-date', { text: 'the quick brown fox', referenceTime }, '/text');
    await expectInvalid('resolve-date', { text: 'tomorrow', referenceTime, timeZone: 'Nowhere/Special' }, '/timeZone');
  });
});

describe('datetime/difference', () => {
  it('counts calendar days across a DST change in the given zone', async () => {
    const output = await call('difference', { from: '2025-03-29', to: '2025-03-31', units: ['days'], timeZone: 'Europe/Paris' });
    expect(output.values).toEqual({ days: 2 });
    const hours = await call('difference', { from: '2025-03-29', to: '2025-03-31', units: ['hours'], timeZone: 'Europe/Paris' });
    expect(hours.values).toEqual({ hours: 47 });
  });

  it('is negative when to is before from, and orders units largest first', async () => {
    const output = await call('difference', { from: '2025-06-01', to: '2025-01-15', units: ['days', 'months'] });
    expect(output.values).toEqual({ months: -4, days: -17 });
    expect(output.humanized).toBe('-4 months, -17 days');
  });

  it('rejects unreadable dates on the right field', async () => {
    await expectInvalid('difference', { from: 'soonish', to: '2025-01-01' }, '/from');
    await expectInvalid('difference', { from: '2025-01-01', to: '2025-13-45' }, '/to');
  });
});
