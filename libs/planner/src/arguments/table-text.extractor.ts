import type { Span } from './argument-fill.types';

export interface CsvBlock extends Span {
  header: string[];
}

/**
 * A table pasted under the request: the lines after the first one, each with the same count (at least
 * one) of the same delimiter. "average price by category\ncategory,price\nfruit,1.2".
 */
export function extractCsvBlock(text: string): CsvBlock | undefined {
  const firstBreak = text.indexOf('\n');
  if (firstBreak < 0) return undefined;
  const start = firstBreak + 1 + (/^\s*/.exec(text.slice(firstBreak + 1))?.[0].length ?? 0);
  const body = text.slice(start).trimEnd();
  const lines = body.split('\n');
  if (lines.length < 2) return undefined;
  for (const delimiter of [',', ';', '\t', '|']) {
    const counts = lines.map((line) => line.split(delimiter).length - 1);
    if (counts[0] > 0 && counts.every((c) => c === counts[0])) {
      return { start, end: start + body.length, text: body, header: lines[0].split(delimiter).map((h) => h.trim()) };
    }
  }
  return undefined;
}

export interface SortKey extends Span {
  column: string;
  direction?: 'asc' | 'desc';
}

const ASCENDING = /^(?:asc|ascending|increasing|a-z|lowest first|smallest first|oldest first)$/i;
const DESCENDING = /^(?:desc|descending|decreasing|z-a|highest first|largest first|newest first)$/i;

/** "sorted by date descending", "order by name asc", "top 5 products by revenue" (desc), "lowest 3 by price" (asc). */
export function extractSortKey(text: string): SortKey | undefined {
  const explicit =
    /\b(?:sort|sorted|order|ordered|rank|ranked)\s+(?:\w+\s+){0,2}?by\s+([\w-]+)(?:\s*,?\s*(asc|ascending|desc|descending|increasing|decreasing|a-z|z-a|(?:lowest|smallest|highest|largest|oldest|newest)\s+first))?/i.exec(
      text,
    );
  if (explicit) {
    const written = explicit[2];
    const direction = written ? (ASCENDING.test(written) ? 'asc' : DESCENDING.test(written) ? 'desc' : undefined) : undefined;
    return { start: explicit.index, end: explicit.index + explicit[0].length, text: explicit[0], column: explicit[1], direction };
  }
  const ranked = /\b(top|highest|largest|biggest|bottom|lowest|smallest)\s+(?:\d+\s+)?(?:[\w-]+\s+){0,2}?by\s+([\w-]+)/i.exec(text);
  if (!ranked) return undefined;
  const direction = /^(?:bottom|lowest|smallest)$/i.test(ranked[1]) ? 'asc' : 'desc';
  return { start: ranked.index, end: ranked.index + ranked[0].length, text: ranked[0], column: ranked[2], direction };
}
