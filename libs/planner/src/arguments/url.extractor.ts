import type { Span } from './argument-fill.types';

export interface UrlMention extends Span {
  value: string;
}

const URL_LIKE = /\b(?:https?|ftp):\/\/[^\s"'<>`“”‘’]+/gi;

/** Absolute URLs; trailing sentence punctuation and an unbalanced closing bracket are not part of them. */
export function extractUrls(text: string): UrlMention[] {
  const found: UrlMention[] = [];
  for (const m of text.matchAll(URL_LIKE)) {
    let value = m[0].replace(/[.,;:!?]+$/, '');
    if (value.endsWith(')') && !value.includes('(')) value = value.slice(0, -1);
    if (!URL.canParse(value)) continue;
    found.push({ start: m.index, end: m.index + value.length, text: value, value });
  }
  return found;
}
