import type { Span } from './argument-fill.types';
import { overlaps } from './text-span.util';
import { isMeasure, unitRatioAt } from './unit.lexicon';

export interface PathMention extends Span {
  value: string;
  /** A folder named in words ("the reports folder") or written with a trailing slash. */
  folder: boolean;
}

// "C:/data/cars.csv", "C:\\reports\\q1.xlsx": a drive letter opens a path.
const TOKEN = /(?:\b[A-Za-z]:(?=[\\/]))?[\w.~/\\-]+/g;
const FILE_NAME = /^[\w.-]*\w\.([A-Za-z][A-Za-z0-9]{0,7})$/;
// Host names look like files with an extension; a path argument is never one of these.
const HOST_SUFFIXES = new Set(['com', 'org', 'net', 'io', 'dev', 'ai', 'co', 'uk', 'de', 'fr', 'gov', 'edu', 'app']);
const NOT_PATHS = new Set(['e.g', 'i.e', 'a.m', 'p.m', 'and/or', 'km/h', 'm/s', 'mi/h', 'ft/s', 'mi/hr', 'km/hr', 'lbf/in2']);
const FOLDER_WORDS = /\b([\w-]+(?:\/[\w-]+)*)\s+(?:folder|directory|dir)\b|\b(?:folder|directory)\s+(?:named\s+|called\s+)?([\w-]+(?:\/[\w-]+)*)/gi;
const NOT_FOLDER_NAMES = new Set([
  'the',
  'a',
  'this',
  'that',
  'my',
  'sandbox',
  'root',
  'current',
  'same',
  'whole',
  'each',
  'every',
  'its',
  'in',
  'of',
  'and',
  'or',
  'to',
  'whole',
  'entire',
  'parent',
  'named',
  'called',
]);

function isPath(token: string): boolean {
  // "D.C.", "U.S", "e.g": initials, not a file with an extension; "2022/AL2562", "US/EU": an id or a pair, not a path.
  if (/^(?:[A-Za-z]\.)+[A-Za-z]\.?$/.test(token) || /^[A-Z0-9]+(?:\/[A-Z0-9]+)+$/.test(token)) return false;
  if (NOT_PATHS.has(token.toLowerCase()) || /^[\d.,/-]+$/.test(token) || isMeasure(token) || unitRatioAt(token, 0)?.text === token) return false;
  if (token.includes('/') || token.includes('\\')) return /[A-Za-z_]/.test(token) && !/^[\\/]+$/.test(token);
  const file = FILE_NAME.exec(token);
  return file !== null && !HOST_SUFFIXES.has(file[1].toLowerCase()) && !/^\d/.test(file[1]);
}

/** File and folder paths; spans inside URLs, e-mail addresses or units are theirs. */
export function extractPaths(text: string, taken: Span[] = []): PathMention[] {
  const found: PathMention[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0].replace(/[.,;:!?]+$/, '');
    const span = { start: m.index, end: m.index + raw.length, text: raw, value: raw, folder: raw.endsWith('/') };
    if (!isPath(raw) || taken.some((t) => overlaps(t, span))) continue;
    found.push(span);
  }
  for (const m of text.matchAll(FOLDER_WORDS)) {
    const name = m[1] ?? m[2];
    if (NOT_FOLDER_NAMES.has(name.toLowerCase())) continue;
    const start = m.index + m[0].indexOf(name);
    const span = { start, end: start + name.length, text: name, value: name, folder: true };
    if (found.some((f) => overlaps(f, span)) || taken.some((t) => overlaps(t, span))) continue;
    found.push(span);
  }
  return found.sort((a, b) => a.start - b.start);
}
