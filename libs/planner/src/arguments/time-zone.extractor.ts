import type { Span } from './argument-fill.types';
import { ABBREVIATION_ZONES, CITY_ZONES, isIanaZone } from './zone.lexicon';

export interface ZoneMention extends Span {
  /** Every zone the words may mean; more than one is ambiguous ("CST", "IST"). */
  zones: string[];
}

const IANA_LIKE = /\b(?:[A-Z][A-Za-z_]+\/)+[A-Za-z_][A-Za-z_+-]*\b|\bUTC\b|\bEtc\/[A-Za-z0-9+-]+\b/g;
const ABBREVIATIONS = new RegExp(
  `\\b(?:${Object.keys(ABBREVIATION_ZONES)
    .filter((a) => a.length > 1)
    .join('|')})\\b`,
  'g',
);
const CITIES = new RegExp(
  `\\b(?:${Object.keys(CITY_ZONES)
    .sort((a, b) => b.length - a.length)
    .map((c) => c.replace(/ /g, '\\s+'))
    .join('|')})\\b`,
  'g',
);

/** Lowercase city names are read where the words point at a clock ("in tokyo rn", "sydney time"), never short ones ("la"). */
const CITY_BY_LOWERCASE = new Map(
  Object.entries(CITY_ZONES)
    .filter(([city]) => city.length > 3)
    .map(([city, zone]) => [city.toLowerCase(), zone]),
);
const LOWERCASE_CITIES = new RegExp(
  `(?<=\\b(?:in|to|for|from|at)\\s+)(?:${[...CITY_BY_LOWERCASE.keys()]
    .sort((a, b) => b.length - a.length)
    .map((c) => c.replace(/ /g, '\\s+'))
    .join('|')})\\b|\\b(?:${[...CITY_BY_LOWERCASE.keys()].map((c) => c.replace(/ /g, '\\s+')).join('|')})(?=\\s+time\\b)`,
  'g',
);

/** Bare "local time" is not here: local to whom is the question it leaves open. */
const OWN_CLOCK = /\b(?:(?:my|our)\s+(?:local\s+)?time(?:\s+zone)?|(?<=\b(?:time|that|it)\s+)for\s+me|where\s+I\s+am)\b/gi;

/** IANA names, common abbreviations, well-known cities and (given `ownZone`) the asker's own clock, each mapped to IANA zones. */
export function extractTimeZones(text: string, ownZone?: string): ZoneMention[] {
  const found: ZoneMention[] = [];
  const add = (start: number, raw: string, zones: string[]) => {
    const end = start + raw.length;
    if (found.some((f) => f.start < end && start < f.end)) return;
    found.push({ start, end, text: raw, zones });
  };
  for (const m of text.matchAll(IANA_LIKE)) if (isIanaZone(m[0])) add(m.index, m[0], [m[0]]);
  for (const m of text.matchAll(ABBREVIATIONS)) add(m.index, m[0], ABBREVIATION_ZONES[m[0]]);
  for (const m of text.matchAll(CITIES)) add(m.index, m[0], [CITY_ZONES[m[0].replace(/\s+/g, ' ')]]);
  // "what time is that for me", "8am my time": the asker's own clock.
  if (ownZone) for (const m of text.matchAll(OWN_CLOCK)) add(m.index, m[0], [ownZone]);
  for (const m of text.matchAll(LOWERCASE_CITIES)) add(m.index, m[0], [CITY_BY_LOWERCASE.get(m[0].replace(/\s+/g, ' ')) as string]);
  return found.sort((a, b) => a.start - b.start);
}
