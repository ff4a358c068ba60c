import type { Span } from './argument-fill.types';

export interface EmailMention extends Span {
  value: string;
}

const EMAIL = /(?<![\w.+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]*[A-Za-z0-9])?@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b/g;

/** E-mail addresses (`mailto:` prefixes dropped); an address inside a URL is the URL's, not a recipient. */
export function extractEmails(text: string, urls: Span[] = []): EmailMention[] {
  return [...text.matchAll(EMAIL)]
    .filter((m) => !urls.some((u) => m.index >= u.start && m.index < u.end) || text.slice(Math.max(0, m.index - 7), m.index).toLowerCase() === 'mailto:')
    .map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0], value: m[0] }));
}
