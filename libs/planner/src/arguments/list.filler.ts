// Array and object fields: column lists, operations with operands, sort keys, name = value maps.
import type { JsonSchema } from '@toolgate/sdk';
import type { Span } from './argument-fill.types';
import { matchEnum } from './enum.matcher';
import { type Filling, fieldScore, joinedAsList, same } from './filling.state';
import { operationItem, type SchemaField, sortItem } from './schema.fields';
import { extractAssignments } from './structured.extractor';
import { extractCsvBlock, extractSortKey } from './table-text.extractor';
import { stem, wordMatches } from './text-span.util';

export function fillStringList(state: Filling, field: SchemaField): void {
  if (field.name in state.fill.arguments) return;
  const cue = field.nameWords.join('\\w*\\s+(?:\\w+\\s+){0,2}');
  const pattern = new RegExp(`\\b${cue}\\w*\\s+(?:the\\s+)?(?:columns?\\s+)?([\\w-]+(?:\\s*(?:,|\\band\\b|&)\\s*[\\w-]+)*)`, 'i');
  // A grouping field ("groupBy") is also named by "per team" or "for each region".
  const grouping = field.nameWords.includes('by') ? /\b(?:per|for each|for every|by)\s+()([\w-]+(?:[ \t]*(?:,|\band\b|&)[ \t]*[\w-]+)*)/i.exec(state.text) : null;
  const m = pattern.exec(state.text) ?? (grouping ? Object.assign([grouping[0], grouping[2]], { index: grouping.index }) : null);
  if (!m) return;
  // A preposition after the field's word ("stops at Philadelphia, …") leads in to names, which fillNameLists reads whole.
  const stop = /^(?:and|then|sum|total|average|mean|count|max|min|with|to|of|the|by|for|showing|show|at|in|on|via|through|from|into)$/i;
  const items: string[] = [];
  for (const item of m[1].split(/\s*(?:,|\band\b|&)\s*/)) {
    const word = item.trim().split(/\s+/)[0];
    if (!word || stop.test(word)) break;
    items.push(word);
  }
  if (items.length === 0) return;
  const start = m.index + m[0].indexOf(m[1]);
  // The span ends with the last item, so the words after it ("and sum the sales") stay free.
  let end = start;
  for (const item of items) end = state.text.indexOf(item, end) + item.length;
  state.set(field, { value: items, span: { start, end, text: state.text.slice(start, end) } });
}

/** Numbers read as one list, and whether they are the two ends of a range. */
interface NumberList {
  values: number[];
  span: Span;
  range?: boolean;
}

/** Numbers written one after another as a list: "85, 90, 88 and 92", "[12, 15, 18]". */
const NUMBER_JOINT = /^\s*(?:,\s*and|,|and|&)\s*$/i;

/**
 * A list of numbers for a field whose items are numbers: an inline JSON array of numbers, or three or
 * more numbers written as a list (two only inside brackets: "[1, 3]"). Several fields take the lists
 * by what their words point at, else in written order; one field with two lists is a question.
 */
export function fillNumberList(state: Filling, listFields: SchemaField[], onlyNumbers = false): void {
  let fields = listFields;
  if (fields.length === 0) return;
  const free = (span: { start: number; end: number }) => state.isFree({ ...span, text: '' });
  const lists: NumberList[] = [];
  for (const json of state.json) {
    if (Array.isArray(json.value) && json.value.length > 0 && json.value.every((v) => typeof v === 'number') && free(json)) lists.push({ values: json.value as number[], span: json });
  }
  const numbers = state.numbers.filter((n) => !n.unit && !n.currency && free(n.digits) && !lists.some((l) => l.span.start <= n.start && n.end <= l.span.end));
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && NUMBER_JOINT.test(state.text.slice(numbers[j].end, numbers[j + 1].start))) j++;
    const run = numbers.slice(i, j + 1);
    const before = state.text.slice(0, run[0].start).trimEnd();
    const bracketed = /[[(]$/.test(before) && /^\s*[\])]/.test(state.text.slice(run[run.length - 1].end));
    // "the multiples of 3 and 5": two numbers right after a list field's own name are its items.
    const lastWords = before.toLowerCase().match(/([a-z]+)(?:\s+(?:of|are|is|as|like))?[\s:]*$/);
    const named = lastWords !== null && fields.some((f) => f.nameWords.some((w) => w.length > 2 && wordMatches(w, stem(lastWords[1]))));
    // A tool whose only numbers are one list ("the sum of 133 and 34" for sum_numbers) takes a pair too.
    const sole = onlyNumbers && fields.length === 1;
    if (run.length >= 3 || (run.length === 2 && (bracketed || named || sole))) {
      const span = { start: run[0].start, end: run[run.length - 1].end, text: state.text.slice(run[0].start, run[run.length - 1].end) };
      lists.push({ values: run.map((n) => n.value), span });
    }
    i = j + 1;
  }
  // "from x=1 to x=3", "between 2015 and 2021": a pair for a field that holds a range, and only for one.
  const ranges = fields.some(holdsRange) ? rangePairs(state, numbers) : [];
  lists.push(...ranges);
  const fits = (field: SchemaField, values: number[], list?: NumberList) => {
    const items = (field.schema.items ?? {}) as JsonSchema;
    if (list?.range && !holdsRange(field)) return false;
    return !(items.type === 'integer' && values.some((v) => !Number.isInteger(v)));
  };
  lists.sort((a, b) => a.span.start - b.span.start);
  const rangeFields = fields.filter(holdsRange);
  if (fields.length > 1 && rangeFields.length === 1 && ranges.length === 1) {
    // The one range written goes to the one field that holds a range; the others share the lists left.
    state.set(rangeFields[0], { value: ranges[0].values, span: ranges[0].span });
    lists.splice(lists.indexOf(ranges[0]), 1);
    fields = fields.filter((f) => f !== rangeFields[0]);
  }
  if (fields.length === 1) {
    const options = lists.filter((l) => fits(fields[0], l.values, l));
    if (options.length === 1) state.set(fields[0], { value: options[0].values, span: options[0].span });
    else if (options.length > 1)
      state.ambiguous(
        fields[0],
        options.map((o) => o.values),
        options.map((o) => o.span),
      );
    return;
  }
  // Each field its best-pointed list; what is left goes in written order.
  const taken = new Set<number>();
  const open = [...fields];
  for (const field of fields) {
    const scored = lists
      .map((l, k) => ({ k, score: fits(field, l.values, l) ? fieldScore(state, field, l.span) : -1 }))
      .filter((x) => x.score > 0 && !taken.has(x.k))
      .sort((a, b) => b.score - a.score);
    if (scored.length === 0 || (scored.length > 1 && scored[0].score === scored[1].score)) continue;
    taken.add(scored[0].k);
    open.splice(open.indexOf(field), 1);
    state.set(field, { value: lists[scored[0].k].values, span: lists[scored[0].k].span });
  }
  const rest = lists.filter((_, k) => !taken.has(k));
  if (rest.length !== open.length) return;
  open.forEach((field, k) => {
    if (fits(field, rest[k].values, rest[k])) state.set(field, { value: rest[k].values, span: rest[k].span });
  });
}

const RANGE_WORDS = new Set(['range', 'interval', 'limit', 'bound', 'span', 'endpoint']);
/** A list field whose name or description says it holds a range ("year_range", "the interval to integrate over"). */
const holdsRange = (field: SchemaField) =>
  [...field.nameWords, ...field.descriptionWords].some((w) => RANGE_WORDS.has(w)) || /\bstart and (?:the )?end\b/i.test(String(field.schema.description ?? ''));

/** Two numbers written as the ends of a range: "from 1 to 3", "between x = -1 and x = 2", "from 2015 to 2021". */
function rangePairs(state: Filling, numbers: Filling['numbers']): NumberList[] {
  const pairs: NumberList[] = [];
  for (let i = 0; i + 1 < numbers.length; i++) {
    const [low, high] = [numbers[i], numbers[i + 1]];
    if (!/\b(?:from|between)\s*(?:[a-z]\s*=\s*)?$/i.test(state.text.slice(0, low.start))) continue;
    if (!/^\s*(?:to|and|through|until|-|–)\s*(?:[a-z]\s*=\s*)?$/i.test(state.text.slice(low.end, high.start))) continue;
    pairs.push({ values: [low.value, high.value], span: { start: low.start, end: high.end, text: state.text.slice(low.start, high.end) }, range: true });
  }
  return pairs;
}

const NOT_OPERANDS = new Set(['of', 'the', 'all', 'a', 'an', 'and', 'by', 'per', 'for', 'rows', 'row', 'records', 'entries', 'items', 'it', 'them', 'then', 'values']);

export function fillOperations(state: Filling, field: SchemaField): void {
  const items = field.schema.items as JsonSchema;
  const shape = operationItem(items);
  if (!shape) return;
  const operations = ((items.properties as Record<string, JsonSchema>)[shape.operation].enum as unknown[]) ?? [];
  const matches = matchEnum(state.text, operations, [...state.opaque, ...state.used]);
  const header = extractCsvBlock(state.text)?.header;
  const list: Record<string, unknown>[] = [];
  for (const match of matches) {
    const after = state.words.filter((w) => w.start >= match.end).slice(0, 3);
    const operand = after.find((w, i) => !NOT_OPERANDS.has(w.word) && after.slice(0, i).every((p) => ['of', 'the', 'all'].includes(p.word)));
    const item: Record<string, unknown> = { [shape.operation]: match.value };
    const written = operand ? state.text.slice(operand.start, operand.end) : undefined;
    // With the table in the text, an operand is one of its columns ("how many orders" counts rows, not a column "orders").
    const column = header && written ? header.find((h) => h.toLowerCase() === written.toLowerCase()) : written;
    if (column && shape.operand) item[shape.operand] = column;
    if (!list.some((l) => same(l, item))) list.push(item);
  }
  if (list.length === 0) return;
  state.fill.arguments[field.name] = list;
  state.fill.evidence[field.name] = matches.map((m) => m.text).join(', ');
}

export function fillSortKeys(state: Filling, field: SchemaField): void {
  const shape = sortItem(field.schema.items as JsonSchema);
  const key = extractSortKey(state.text);
  if (!shape || !key) return;
  const item: Record<string, unknown> = { [shape.column]: key.column };
  if (key.direction && shape.direction) item[shape.direction] = key.direction;
  state.fill.arguments[field.name] = [item];
  state.fill.evidence[field.name] = key.text;
}

/** `name = value` pairs written in the text ("x=3, y=4") make one object. */
export function fillNumberMap(state: Filling, field: SchemaField): void {
  const assignments = extractAssignments(state.text, [...state.opaque]);
  if (assignments.length === 0) return;
  const value = Object.fromEntries(assignments.map((a) => [a.name, a.value]));
  state.set(field, { value, span: { start: assignments[0].start, end: assignments.at(-1)?.end ?? 0, text: assignments.map((a) => a.text).join(', ') } });
}

/** A polynomial in one variable written out: "3x^2 + 2x - 4", "y = x^3 - 1", "2x² - 3x + 1". */
const POLYNOMIAL =
  /(?:^|[=\s(])((?:[-+]?\s*\d*\.?\d*(?:\s*\*\s*)?[a-z](?![a-z])(?:\s*(?:\^|\*\*)\s*\d+|[²³])?|[-+]?\s*\d+(?:\.\d+)?)(?:\s*[-+]\s*(?:\d*\.?\d*(?:\s*\*\s*)?[a-z](?![a-z])(?:\s*(?:\^|\*\*)\s*\d+|[²³])?|\d+(?:\.\d+)?(?![\w.])))+)/g;

/** The polynomials the text writes out, each with its coefficients by exponent, where it is written. */
function writtenPolynomials(state: Filling): { coefficients: Map<number, number>; span: Span }[] {
  const found: { coefficients: Map<number, number>; span: Span }[] = [];
  for (const m of state.text.matchAll(POLYNOMIAL)) {
    const start = m.index + m[0].indexOf(m[1]);
    const span = { start, end: start + m[1].length, text: m[1] };
    if (!/[a-z]/.test(m[1]) || !state.isFree(span)) continue;
    const body = m[1].replace(/\s+/g, '').replaceAll('²', '^2').replaceAll('³', '^3');
    if (new Set(body.match(/[a-z]/g)).size !== 1) continue;
    const terms = [...body.matchAll(/([-+]?)(\d*\.?\d*)\*?([a-z])?(?:(?:\^|\*\*)(\d+))?/g)].filter((t) => t[0] !== '' && t[0] !== '+' && t[0] !== '-');
    const coefficients = new Map<number, number>();
    for (const [, sign, digits, variable, power] of terms) {
      const exponent = variable ? Number(power ?? 1) : 0;
      const value = (sign === '-' ? -1 : 1) * (digits === '' ? 1 : Number(digits));
      if (Number.isNaN(value) || coefficients.has(exponent)) break;
      coefficients.set(exponent, value);
    }
    if (coefficients.size === terms.length) found.push({ coefficients, span });
  }
  return found;
}

/**
 * A list field of a polynomial's coefficients ("The coefficients of the polynomial, in decreasing order of
 * exponent") takes them from the polynomial written out: "3x^2 + 2x - 4" is [3, 2, -4]; increasing order when
 * the description says so.
 */
export function fillPolynomial(state: Filling, fields: SchemaField[]): void {
  const field = fields.find((f) => state.isOpen(f) && /\bcoefficients?\b/i.test(`${f.name} ${f.schema.description ?? ''}`));
  if (!field) return;
  const written = writtenPolynomials(state);
  if (written.length !== 1) return;
  const { coefficients, span } = written[0];
  const degree = Math.max(...coefficients.keys());
  const decreasing = Array.from({ length: degree + 1 }, (_, k) => coefficients.get(degree - k) ?? 0);
  const increasing = /\bincreasing order\b|\bconstant term first\b/i.test(String(field.schema.description ?? ''));
  state.set(field, { value: increasing ? decreasing.reverse() : decreasing, span });
}

/** Which term of a polynomial a number field is the coefficient of, by its description: "Coefficient of x^2", "The constant term". */
function termOf(field: SchemaField): number | undefined {
  const description = String(field.schema.description ?? '');
  if (/\bconstant(?:\s+term)?\b/i.test(description) && !/\bcoefficient of\b/i.test(description.replace(/\bconstant\b.*/i, ''))) return 0;
  const of = /\bcoefficient of (?:the\s+)?(?:[a-z](?:\s*(?:\^|\*\*)\s*(\d)|([²³])|\s+(squared|cubed))?(?![a-z])|(squared|linear|cubic|quadratic)\s+term)/i.exec(description);
  if (!of) return undefined;
  const [, power, sign, word, named] = of;
  if (power) return Number(power);
  if (sign) return sign === '²' ? 2 : 3;
  const name = (word ?? named ?? '').toLowerCase();
  return name === 'squared' || name === 'quadratic' ? 2 : name === 'cubed' || name === 'cubic' ? 3 : 1;
}

/**
 * Number fields that each hold one coefficient ("a: Coefficient of x^2", "c: Constant term") take them from the
 * polynomial written out ("3x^2 + 4x + 2 = 0"); two polynomials written are a call each.
 */
export function fillPolynomialTerms(state: Filling, fields: SchemaField[]): void {
  const terms = fields
    .filter((f) => state.isOpen(f))
    .flatMap((field) => {
      const exponent = termOf(field);
      return exponent === undefined ? [] : [{ field, exponent }];
    });
  if (terms.length < 2 || new Set(terms.map((t) => t.exponent)).size !== terms.length) return;
  const written = writtenPolynomials(state).filter((p) => Math.max(...p.coefficients.keys()) === Math.max(...terms.map((t) => t.exponent)));
  if (written.length === 0) return;
  const calls = written.map(({ coefficients }) => Object.fromEntries(terms.map(({ field, exponent }) => [field.name, coefficients.get(exponent) ?? 0])));
  for (const { field } of terms) state.set(field, { value: calls[0][field.name], span: written[0].span });
  state.used.push(...written.map((p) => p.span));
  if (calls.length > 1) state.fill.each = calls;
}

/** What a count may be of before the thing counted ("three bottles of olive oil"). */
const MEASURE_OF = /^(?:bottles?|bags?|boxes?|cans?|packs?|packets?|cartons?|jars?|pieces?|cups?|glasses?|slices?|loaves?|bunch(?:es)?|cases?|rolls?|tubs?|sets?|pairs?)\s+of\s+/i;
/** The thing counted: up to four words, ending where the list goes on or the sentence turns ("from McDonald's"). */
const COUNTED = /^(['"‘“]?)([A-Za-z](?:[\w'’&-]*\w)?(?:\s+[A-Za-z](?:[\w'’&-]*\w)?){0,3}?)['"’”]?(?=\s*(?:[,.?!;]|$|\s+(?:and|from|at|in|for|to|with|on|please|each)\b))/;
/** Words a count-list field is named by ("quantities", "counts", "qty"). */
const COUNT_WORDS = new Set(['quantity', 'quantities', 'qty', 'count', 'counts', 'amount', 'amounts', 'number', 'numbers']);

/**
 * "five burgers and six chicken wings", "three bottles of olive oil and two dozen eggs": an order of counted things
 * for a tool that takes the things and their counts as two lists aligned by index (items, quantities), or as one list
 * of {item, quantity} objects. Two things at least, written as one list; "two dozen" counts 24.
 */
export function fillCountedItems(state: Filling, fields: SchemaField[]): void {
  const counts = fields.filter((f) => f.kind === 'number-list' && state.isOpen(f) && f.nameWords.some((w) => COUNT_WORDS.has(w)));
  const things = fields.filter((f) => f.kind === 'string-list' && state.isOpen(f));
  const records = fields.map((f) => ({ field: f, keys: countedRecordKeys(f) })).filter((r) => r.keys && state.isOpen(r.field));
  const pair = counts.length === 1 && things.length === 1;
  if (!pair && records.length !== 1) return;
  const entries = countedEntries(state);
  if (!entries) return;
  const span = { start: entries[0].span.start, end: entries.at(-1)?.span.end ?? entries[0].span.end, text: '' };
  span.text = state.text.slice(span.start, span.end);
  if (pair) {
    state.set(things[0], { value: entries.map((e) => e.item), span });
    state.set(counts[0], { value: entries.map((e) => e.count), span });
    return;
  }
  const { field, keys } = records[0];
  if (keys) state.set(field, { value: entries.map((e) => ({ [keys.item]: e.item, [keys.count]: e.count })), span });
}

/** An array of objects with one text property and one count ({item, quantity}): which is which. */
function countedRecordKeys(field: SchemaField): { item: string; count: string } | undefined {
  if (field.kind !== 'other' || field.schema.type !== 'array') return undefined;
  const properties = Object.entries(((field.schema.items as JsonSchema | undefined)?.properties ?? {}) as Record<string, JsonSchema>);
  if (properties.length !== 2) return undefined;
  const count = properties.find(([name, p]) => (p.type === 'integer' || p.type === 'number') && COUNT_WORDS.has(stem(name.toLowerCase())));
  const item = properties.find(([, p]) => p.type === 'string');
  return count && item ? { item: item[0], count: count[0] } : undefined;
}

/** The counted things written as one list, each with its count and where it is written; undefined for fewer than two. */
function countedEntries(state: Filling): { count: number; item: string; span: Span }[] | undefined {
  const entries: { count: number; item: string; span: Span }[] = [];
  for (const number of state.numbers) {
    // "two dozen eggs" is one entry, not "two" and "dozen eggs".
    const inPrevious = number.start < (entries.at(-1)?.span.end ?? 0);
    if (inPrevious || !Number.isInteger(number.value) || number.value <= 0 || number.unit || number.currency) continue;
    let at = number.digits.end;
    let count = number.value;
    const rest = () => state.text.slice(at).replace(/^\s+/, '');
    const skip = (length: number) => {
      at = state.text.length - rest().length + length;
    };
    const dozen = /^dozens?\s+(?:of\s+)?/i.exec(rest());
    if (dozen) {
      count *= 12;
      skip(dozen[0].length);
    }
    const measure = MEASURE_OF.exec(rest());
    if (measure) skip(measure[0].length);
    const thing = COUNTED.exec(rest());
    if (!thing) continue;
    const start = state.text.length - rest().length;
    entries.push({ count, item: thing[2], span: { start: number.start, end: start + thing[0].length, text: state.text.slice(number.start, start + thing[0].length) } });
  }
  const listed =
    entries.length >= 2 &&
    joinedAsList(
      state.text,
      entries.map((e) => e.span),
    ) &&
    entries.every((e) => state.isFree(e.span));
  return listed ? entries : undefined;
}
