import type { Span } from './argument-fill.types';

export interface QuotedMention extends Span {
  /** The text between the quotes. */
  value: string;
}

// A single quote opens only after a non-word character and closes only before one, so the apostrophes
// of "don't" and "it's" never pair up, and one between letters stays inside a quote ('Let's meet').
const QUOTED = /"([^"\n]+)"|“([^”]+)”|(?<![\w])'((?:[^'\n]|(?<=\w)'(?=\w))+)'(?![\w])|‘([^’]+)’|`([^`\n]+)`/g;

export function extractQuoted(text: string): QuotedMention[] {
  return [...text.matchAll(QUOTED)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    text: m[0],
    value: m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5],
  }));
}
