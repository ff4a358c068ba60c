import type { Span } from './argument-fill.types';
import { ABBREVIATION_ZONES, CITY_ZONES, isIanaZone } from './zone-lexicon';

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

/** IANA names, common abbreviations and well-known cities, each mapped to IANA zones. */
export function extractTimeZones(text: string): ZoneMention[] {
  const found: ZoneMention[] = [];
  const add = (start: number, raw: string, zones: string[]) => {
    const end = start + raw.length;
    if (found.some((f) => f.start < end && start < f.end)) return;
    found.push({ start, end, text: raw, zones });
  };
  for (const m of text.matchAll(IANA_LIKE)) if (isIanaZone(m[0])) add(m.index, m[0], [m[0]]);
  for (const m of text.matchAll(ABBREVIATIONS)) add(m.index, m[0], ABBREVIATION_ZONES[m[0]]);
  for (const m of text.matchAll(CITIES)) add(m.index, m[0], [CITY_ZONES[m[0].replace(/\s+/g, ' ')]]);
  return found.sort((a, b) => a.start - b.start);
}
