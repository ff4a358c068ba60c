// Enumerations in the text: for a text field filled from the first item ("the presidency of Abraham
// Lincoln and George Washington") one call per item; for a list field the items as its value
// ("the price of tomatoes and lettuce", "['Sam', 'Alice', 'Jack']").
import type { Span } from './argument-fill.types';
import type { Filling } from './filling.state';
import { isCommonWord, type Token, tokensOf } from './phrase.extractor';
import type { SchemaField } from './schema.fields';
import { stem, wordMatches } from './text-span.util';

/** Words that end an item or cannot start one: what follows them is about something else. */
const STOPS = new Set(
  `a an the my your our their his her its this that these those some any all each every
  in on at for from to with by of about into onto over under within without between during per via as than
  and or nor but then also while whereas plus if when where which who whom whose how what why
  is are was were be been being has have had do does did will would can could should may might must`.split(/\s+/),
);
/** A personal pronoun, alone or with its contraction ("I", "I'd", "we're"): the start of a clause, never of an item. */
const PRONOUN = /^(?:i|we|you|he|she|it|they|me|us|him|them)(?:['’]\p{L}+)?$/iu;
const MAX_ITEM_WORDS = 4;

interface Item extends Span {
  value: string;
}

/** Words of the next item from `position` on: up to a stop word, punctuation or the item's length. */
function itemAt(text: string, tokens: Token[], position: number): Item | undefined {
  const words: Token[] = [];
  for (const token of tokens.filter((t) => t.start >= position)) {
    const gap = text.slice(words.at(-1)?.end ?? position, token.start);
    if (!(words.length === 0 ? /^\s*$/ : /^[ \t-]+$/).test(gap) || STOPS.has(token.value.toLowerCase()) || PRONOUN.test(token.value)) break;
    words.push(token);
    if (words.length > MAX_ITEM_WORDS) return undefined;
  }
  if (words.length === 0) return undefined;
  const [first, last] = [words[0], words[words.length - 1]];
  return { start: first.start, end: last.end, text: text.slice(first.start, last.end), value: text.slice(first.start, last.end) };
}

type Shape = 'name' | 'code' | 'plain';
const shapeOf = (value: string): Shape => (/^[A-Z]|^[a-z]+[A-Z]/.test(value) ? 'name' : /^\S*\d\S*$/.test(value) ? 'code' : 'plain');
const wordsIn = (value: string) => value.toLowerCase().split(/[\s-]+/);

/**
 * Items are alike when written alike: names with names, codes with codes; plain words when they share
 * a head noun ("normal hemoglobin and rat hemoglobin"), or in a list of three or more of about the
 * same length ("navy, purple and maroon"): two plain words joined by "and" are as often two clauses
 * ("is vegan, and takes under 30 minutes").
 */
function alike(items: string[]): boolean {
  const [value, ...rest] = items;
  const shape = shapeOf(value);
  if (rest.some((item) => shapeOf(item) !== shape)) return false;
  if (shape !== 'plain') return true;
  const head = wordsIn(value).at(-1);
  if (rest.every((item) => wordsIn(item).at(-1) === head)) return true;
  return items.length >= 3 && rest.every((item) => Math.abs(wordsIn(item).length - wordsIn(value).length) <= 1 && !isCommonWord(item));
}

/** What joins one item of a list to the next; "and" (or "&") closes the list. */
const LIST_JOINT = /^(\s*,\s*(?:and\s+(?:also\s+)?)?|\s+(?:and(?:\s+also)?|as well as|&)\s+)/i;

/**
 * The items that follow `first` written as one list with it ("X, Y and Z", "X and Y"), each of the
 * first's shape and free, when the list is closed by "and"; undefined otherwise.
 */
function listFrom(state: Filling, tokens: Token[], first: Item, fits: (item: Item) => boolean): Item[] | undefined {
  const items = [first];
  for (;;) {
    const joint = LIST_JOINT.exec(state.text.slice(items[items.length - 1].end));
    if (!joint) return undefined;
    const next = itemAt(state.text, tokens, items[items.length - 1].end + joint[0].length);
    if (!next || shapeOf(next.value) !== shapeOf(first.value) || !state.isFree(next) || !fits(next)) return undefined;
    items.push(next);
    if (/\band\b|&/i.test(joint[0])) return items;
  }
}

/**
 * Widens each filled text field whose value starts an enumeration into the enumeration's
 * items. An enumeration ends with "and" (", X and Y", "X and Y"); "Paris, France" is a place, not a
 * list, and "X or Y" is a question the filler leaves alone.
 */
export function widenEnumerations(state: Filling, fields: SchemaField[]): void {
  const tokens = tokensOf(state.text);
  for (const field of fields) {
    const value = state.fill.arguments[field.name];
    const span = state.valueSpans.get(field.name);
    if (typeof value !== 'string' || !span || state.text.slice(span.start, span.end) !== value) continue;
    const items = listFrom(state, tokens, { ...span, value }, () => true);
    if (!items || !alike(items.map((i) => i.value))) continue;
    delete state.fill.arguments[field.name];
    delete state.fill.evidence[field.name];
    state.used.push(...items.slice(1));
    state.ambiguous(
      field,
      items.map((i) => i.value),
      items,
    );
  }
}

/** A list of quoted items: a literal "['Sam', 'Alice', 'Jack']", or two or more quotes listed "'Age', 'Income' and 'Education'". */
const QUOTED_ITEM = `(?:'[^'\\n]*'|"[^"\\n]*")`;
const QUOTED_LIST = new RegExp(
  `\\[\\s*${QUOTED_ITEM}(?:\\s*,\\s*${QUOTED_ITEM})*\\s*,?\\s*\\]|(?<![\\w'"])${QUOTED_ITEM}(?:\\s*,\\s*${QUOTED_ITEM})*(?:\\s*,?\\s*(?:and|&)\\s+|\\s*,\\s*)${QUOTED_ITEM}`,
  'g',
);
/** Words that lead in to the things a list field holds ("the price of tomatoes and lettuce", "uses chicken and mushrooms"). */
const LIST_INTRO = new Set('of with using uses use including includes include like containing contains buy buying order ordering selling sells need needs want'.split(' '));

/** The one string-list field open takes the one list literal with quoted items, before its quotes are read one by one. */
export function fillQuotedLists(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => state.isOpen(f));
  const literals = [...state.text.matchAll(QUOTED_LIST)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] })).filter((span) => state.isFree(span));
  if (open.length !== 1 || literals.length !== 1) return;
  const [span] = literals;
  state.set(open[0], { value: [...span.text.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((m) => m[1] ?? m[2]), span });
}

/**
 * The one string-list field still open takes the one enumeration of plain words the text writes,
 * closed by "and", after a word that leads in to things (or the field's own name). Two candidate
 * lists, or none, leave the field to the other fillers.
 */
export function fillWordLists(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => state.isOpen(f));
  if (open.length !== 1) return;
  const [field] = open;
  const tokens = tokensOf(state.text);
  const lists: Item[][] = [];
  for (const [i, token] of tokens.entries()) {
    const before = tokens[i - 1]?.value.toLowerCase();
    if (!before || !(LIST_INTRO.has(before) || field.nameWords.some((w) => wordMatches(w, stem(before))))) continue;
    const list = enumerationAt(state, tokens, token.start);
    if (list) lists.push(list);
  }
  if (lists.length !== 1) return;
  const [items] = lists;
  const span = { start: items[0].start, end: items[items.length - 1].end, text: state.text.slice(items[0].start, items[items.length - 1].end) };
  state.set(field, { value: items.map((i) => i.value), span });
}

/** The plain-word enumeration starting at `position`, closed by "and", when its items are alike. */
function enumerationAt(state: Filling, tokens: Token[], position: number): Item[] | undefined {
  const first = itemAt(state.text, tokens, position);
  if (!first || shapeOf(first.value) !== 'plain' || !state.isFree(first)) return undefined;
  const items = listFrom(state, tokens, first, (next) => !isCommonWord(next.value));
  // "uses tofu and takes 20 minutes": an item with an amount in it is a clause, not a thing.
  return items?.every((item) => item.value.split(/\s+/).length <= 3 && !/\d/.test(item.value)) ? items : undefined;
}
