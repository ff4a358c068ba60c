import { extractQuoted } from '@toolgate/retrieval';

const STOP_WORDS = new Set(
  'a an the of to in on at by for from with and or is are be this that these those it its as e.g eg default only than when what which into per your you not no must such'.split(' '),
);

/** Text to match literally inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Two words that are one word for matching: equal, or sharing their first five letters ("temperature"/"temperatures", "convert"/"conversion"). */
export const wordMatches = (a: string, b: string) => a === b || (a.length >= 5 && b.length >= 5 && a.slice(0, 5) === b.slice(0, 5));

/** Looser, for naming a tool: also one a prefix of the other ("calc"/"calculator", "area"/"areas"). */
export const wordsRelated = (a: string, b: string) => wordMatches(a, b) || (a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a)));

/**
 * Whether a position lies outside every quoted passage ("the content 'Plan: 1. Report; 2. Budget'" is one
 * value). A request sent whole in quotes is still read as words.
 */
export function outsideQuotes(text: string): (index: number) => boolean {
  const inner = extractQuoted(text).filter((q) => !(q.start <= 1 && q.end >= text.trimEnd().length - 1));
  return (index) => !inner.some((q) => index > q.start && index < q.end - 1);
}

/** Where a sentence's coordinated parts meet: ", and", ", as well as", a comma, "and", "as well as"; never inside a quote. */
export function coordinationJoints(text: string): { index: number; length: number }[] {
  const outside = outsideQuotes(text);
  // A comma between digits groups thousands ("10,000 yuan"): it joins nothing.
  return [...text.matchAll(/\s*(?:(?<!\d),\s*(?:and\s+|as well as\s+)?|,(?!\d)\s*(?:and\s+|as well as\s+)?|\s+and\s+|\s+as well as\s+)/gi)]
    .map((m) => ({ index: m.index ?? 0, length: m[0].length }))
    .filter((joint) => outside(joint.index));
}

/** A crude English stem, enough to match "terms"/"term", "words"/"word", "recursively"/"recursive". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 5 && w.endsWith('ly')) return stem(w.slice(0, -2));
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** "wordsPerMinute" -> ["words", "per", "minute"]; "max_bytes" -> ["max", "bytes"]; "mass1" -> ["mass", "1"]. */
export function nameWords(name: string): string[] {
  return (
    name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      // "temperature1" is the temperature numbered 1, as the text's words split ("sha256" reads "sha", "256").
      .replace(/([A-Za-z])(\d)/g, '$1 $2')
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w.toLowerCase())
      // "username", "filename", "hostname": a closed compound names its thing ("user 'Sam'") as its parts would.
      .flatMap((w) => (/^[a-z]{3,}name$/.test(w) ? [w.slice(0, -4), 'name'] : [w]))
  );
}

/** Content words of a description, stemmed, without stop words or examples. */
export function contentWords(description: string | undefined): string[] {
  if (!description) return [];
  const plain = description.split(/,?\s*e\.g\./)[0];
  return (plain.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length > 2 && !STOP_WORDS.has(w)).map(stem);
}

export interface Word {
  word: string;
  start: number;
  end: number;
}

export function wordsOf(text: string): Word[] {
  return [...text.matchAll(/[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*/g)].map((m) => ({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

/** Up to `count` lowercase words right before `start` (nearest last). */
export function wordsBefore(words: Word[], start: number, count: number): string[] {
  const before = words.filter((w) => w.end <= start);
  return before.slice(-count).map((w) => w.word);
}
