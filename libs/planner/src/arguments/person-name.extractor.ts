import type { Span } from './argument-fill.types';

export interface PersonName {
  first?: Span & { value: string };
  last?: Span & { value: string };
}

const NAME = "[A-Z][a-z'’-]+";
const at = (m: RegExpExecArray, group: number, text: string) => {
  const start = text.indexOf(m[group], m.index);
  return { start, end: start + m[group].length, text: m[group], value: m[group] };
};

/**
 * A person's name: "first name Omar, last name Haddad" when the parts are named, else the capitalised
 * words right after "lead", "contact", "add" or "named" ("new lead: Jane Doe", "Add Grace (...)").
 */
export function extractPersonName(text: string): PersonName {
  const first = new RegExp(`\\b(?:first|given)\\s+name\\s*(?:is|:|=)?\\s*(${NAME})`, 'i').exec(text);
  const last = new RegExp(`\\b(?:last|family)\\s+name\\s*(?:is|:|=)?\\s*(${NAME})|\\bsurname\\s*(?:is|:|=)?\\s*(${NAME})`, 'i').exec(text);
  if (first || last) {
    return {
      first: first ? at(first, 1, text) : undefined,
      last: last ? at(last, last[1] ? 1 : 2, text) : undefined,
    };
  }
  const cued = new RegExp(`\\b(?:[Ll]ead|[Cc]ontact|[Cc]ustomer|[Pp]erson|[Aa]dd|[Nn]amed|[Cc]alled)\\s*:?\\s+(${NAME})(?:\\s+(${NAME}))?`).exec(text);
  if (!cued) return {};
  return { first: at(cued, 1, text), last: cued[2] ? at(cued, 2, text) : undefined };
}
