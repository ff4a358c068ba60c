import { tokenize } from '../documents/text.tokenizer';

export interface DecompositionOptions {
  /** At most this many clauses; the rest is joined into the last one. */
  maxClauses: number;
  /** A clause needs this many content words to stand alone; shorter fragments join their neighbour. */
  minClauseTerms: number;
}

export const DEFAULT_DECOMPOSITION: DecompositionOptions = { maxClauses: 6, minClauseTerms: 2 };

/** Sentence ends (a capital or quote must follow, so "v1.2" and "e.g. x" stay whole) and semicolons. */
const SENTENCE_BREAK = /(?<=[.!?])\s+(?=["'“(]?\p{Lu})|;\s*/u;
/** Connectives that start a new request inside a sentence ("..., and then ...", "Additionally, ..."); a bare ", and" only before a request verb, so "genre, director, and rating" stays one clause. */
const CONNECTIVE =
  /(?:^|,?\s+)(?:and\s+then|and\s+also|and\s+finally|after\s+that|afterwards|additionally|furthermore|moreover|then|finally|also|as\s+well\s+as|along\s+with|in\s+addition(?:\s+to)?)\b,?\s*|,?\s+and\s+(?=(?:please\s+)?(?:get|find|retrieve|check|search|calculate|compute|provide|tell|show|give|list|send|create|book|analy[sz]e|generate|update|translate|convert|predict|obtain|fetch|look|recommend|schedule|monitor|track|estimate|evaluate|identify|determine|delete|cancel|add|set|make|i\s+(?:also\s+)?(?:want|need|would)|can\s+you|could\s+you)\b)/iu;

/**
 * Splits a long request into the separate things it asks for ("Calculate X. Then retrieve Y, and
 * also book Z" -> three clauses), so each intent can be searched on its own. A single-intent query
 * comes back as one clause.
 */
export function decomposeQuery(text: string, options: DecompositionOptions = DEFAULT_DECOMPOSITION): string[] {
  const pieces = text
    .split(SENTENCE_BREAK)
    .flatMap((sentence) => sentence.split(CONNECTIVE))
    .map((piece) => piece.trim().replace(/^[,.;:\s]+|[,;:\s]+$/g, ''))
    .filter((piece) => piece.length > 0);
  const clauses: string[] = [];
  let pending = '';
  for (const piece of pieces) {
    const joined = pending ? `${pending} ${piece}` : piece;
    // A fragment too thin to search on ("First,", "Please help me.") joins what follows.
    if (tokenize(joined).length < options.minClauseTerms) {
      pending = joined;
      continue;
    }
    clauses.push(joined);
    pending = '';
  }
  if (pending) {
    if (clauses.length > 0) clauses[clauses.length - 1] = `${clauses[clauses.length - 1]} ${pending}`;
    else clauses.push(pending);
  }
  if (clauses.length > options.maxClauses) clauses.splice(options.maxClauses - 1, clauses.length, clauses.slice(options.maxClauses - 1).join(' '));
  return clauses.length > 0 ? clauses : [text.trim()];
}
