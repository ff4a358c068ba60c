// A text field filled from the first item of an enumeration ("the presidency of Abraham Lincoln and
// George Washington", "navy, purple and maroon") asks for one call per item: the field gets the items
// as a list, and the filler's list spreading makes the calls.
import type { Span } from './argument-fill.types';
import type { Filling } from './filling.state';
import { isCommonWord, type Token, tokensOf } from './phrase.extractor';
import type { SchemaField } from './schema.fields';

/** Words that end an item or cannot start one: what follows them is about something else. */
const STOPS = new Set(
  `a an the my your our their his her its this that these those some any all each every
  in on at for from to with by of about into onto over under within without between during per via as than
  and or nor but then also while whereas plus if when where which who whom whose how what why
  is are was were be been being has have had do does did will would can could should may might must`.split(/\s+/),
);
const MAX_ITEM_WORDS = 4;

interface Item extends Span {
  value: string;
}

/** Words of the next item from `position` on: up to a stop word, punctuation or the item's length. */
function itemAt(text: string, tokens: Token[], position: number): Item | undefined {
  const words: Token[] = [];
  for (const token of tokens.filter((t) => t.start >= position)) {
    const gap = text.slice(words.at(-1)?.end ?? position, token.start);
    if (!(words.length === 0 ? /^\s*$/ : /^[ \t-]+$/).test(gap) || STOPS.has(token.value.toLowerCase())) break;
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

/**
 * Widens each filled text field whose value starts an enumeration into the enumeration's
 * items. An enumeration ends with "and" (", X and Y", "X and Y"); "Paris, France" is a place, not a
 * list, and "X or Y" is a question the filler leaves alone.
 */
export function widenEnumerations(state: Filling, fields: SchemaField[]): void {
  const tokens = tokensOf(state.text);
  for (const field of fields) {
    if (!(field.name in state.fill.arguments)) continue;
    const value = state.fill.arguments[field.name];
    const span = state.valueSpans.get(field.name);
    if (typeof value !== 'string' || !span || state.text.slice(span.start, span.end) !== value) continue;
    const items: Item[] = [{ ...span, value }];
    let closed = false;
    for (;;) {
      const joint = /^(\s*,\s*(and\s+)?|\s+(and|as well as|&)\s+)/i.exec(state.text.slice(items[items.length - 1].end));
      if (!joint) break;
      const next = itemAt(state.text, tokens, items[items.length - 1].end + joint[0].length);
      if (!next || shapeOf(next.value) !== shapeOf(value) || !state.isFree(next)) break;
      items.push(next);
      if (/\band\b|&/i.test(joint[0])) {
        closed = true;
        break;
      }
    }
    if (!closed || items.length < 2 || !alike(items.map((i) => i.value))) continue;
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
