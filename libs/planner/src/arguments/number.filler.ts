// Numbers, currencies and units: the amounts a task writes and what they are measured in.
import { countedNameWords, type Filling, fieldScore, shareListScores } from './filling.state';
import { extractCurrencies, extractUnits, type NumberMention } from './number.extractor';
import type { SchemaField } from './schema.fields';
import { stem, wordMatches } from './text-span.util';

const TIME_UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  min: 60000,
  mins: 60000,
  minute: 60000,
  minutes: 60000,
};

/** "5%" for a rate the description does not call a percentage is the fraction 0.05. */
function asFraction(text: string, field: SchemaField, mention: NumberMention): boolean {
  if (!/^\s?(?:%|percent\b|per cent\b)/i.test(text.slice(mention.digits.end))) return false;
  const description = String(field.schema.description ?? '');
  return (field.schema as { type?: string }).type === 'number' && (/\bdecimal|\bfraction/i.test(description) || !/percent|%/i.test(`${field.name} ${description}`));
}

function numericValue(text: string, field: SchemaField, mention: NumberMention): number | undefined {
  let value = asFraction(text, field, mention) ? Number((mention.value / 100).toPrecision(12)) : mention.value;
  // A field counted in milliseconds takes "5 seconds" as 5000.
  if (/Ms$|_ms$/.test(field.name) && mention.unit) {
    const factor = TIME_UNIT_MS[mention.unit.text.toLowerCase()];
    if (factor === undefined) return undefined;
    value *= factor;
  }
  const { minimum, maximum, type } = field.schema as { minimum?: number; maximum?: number; type?: string };
  if (type === 'integer' && !Number.isInteger(value)) return undefined;
  if (typeof minimum === 'number' && value < minimum) return undefined;
  if (typeof maximum === 'number' && value > maximum) return undefined;
  return value;
}

export function fillNumbers(state: Filling, fields: SchemaField[], all: SchemaField[]): void {
  const numbers = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' }));
  const quantityField = (f: SchemaField) => all.some((g) => (g.kind === 'unit' || g.kind === 'currency') && g !== f) && f.required;
  const pairs: { field: SchemaField; mention: NumberMention; value: number; score: number }[] = [];
  for (const field of fields) {
    for (const mention of numbers) {
      const value = numericValue(state.text, field, mention);
      if (value === undefined) continue;
      let score = fieldScore(state, field, mention) + (mention.unit && [...countedNameWords(field), ...field.descriptionWords].some((w) => wordMatches(w, stem(mention.unit?.text ?? ''))) ? 2.5 : 0);
      if (quantityField(field) && (mention.unit || mention.currency)) score += 3;
      if (quantityField(field) && !mention.unit && !mention.currency && all.some((g) => g.kind === 'unit') && numbers.some((n) => n.unit)) score -= 1;
      pairs.push({ field, mention, value, score });
    }
  }
  shareListScores(state.text, pairs, (p) => p.mention);
  pairs.sort((a, b) => b.score - a.score || a.mention.start - b.mention.start);
  const done = new Set<SchemaField>();
  // "5 feet or 6 feet to meters": two measured amounts for one quantity is a question.
  for (const field of fields.filter(quantityField)) {
    const measured = [...new Set(pairs.filter((p) => p.field === field && (p.mention.unit || p.mention.currency)).map((p) => p.value))];
    if (measured.length > 1) {
      state.ambiguous(field, measured);
      done.add(field);
    }
  }
  const taken = new Set<NumberMention>();
  for (const pair of pairs) {
    if (pair.score <= 0 || done.has(pair.field) || taken.has(pair.mention)) continue;
    const rivals = pairs.filter((p) => p.field === pair.field && p.score === pair.score && !taken.has(p.mention) && p.value !== pair.value);
    done.add(pair.field);
    if (rivals.length > 0) {
      const options = [pair, ...rivals].sort((a, b) => a.mention.start - b.mention.start);
      state.ambiguous(
        pair.field,
        options.map((o) => o.value),
        options.map((o) => o.mention),
      );
      continue;
    }
    taken.add(pair.mention);
    state.set(pair.field, { value: pair.value, span: pair.mention });
  }
  // Required numbers the words do not point at take the numbers left: one each in the order both are
  // written ("the other two sides as 4 and 5" for x, y); more numbers than fields are a question.
  const unpointed = fields.filter((f) => f.required && !done.has(f));
  const leftover = numbers.filter((n) => !taken.has(n) && unpointed.every((f) => pairs.some((p) => p.field === f && p.mention === n && p.score >= 0)));
  if (unpointed.length > 1 && leftover.length === unpointed.length) {
    unpointed.forEach((field, i) => {
      const pair = pairs.find((p) => p.field === field && p.mention === leftover[i]);
      if (!pair) return;
      taken.add(pair.mention);
      done.add(field);
      state.set(field, { value: pair.value, span: pair.mention });
    });
  }
  for (const field of fields.filter((f) => f.required && !done.has(f))) {
    const left = pairs.filter((p) => p.field === field && !taken.has(p.mention) && p.score >= 0);
    const values = [...new Set(left.map((p) => p.value))];
    if (values.length === 1) {
      taken.add(left[0].mention);
      state.set(field, { value: left[0].value, span: left[0].mention });
    } else if (values.length > 1) state.ambiguous(field, values);
  }
}

/** Currency codes; one written against the amount ("20 USD") is the source side. */
export function fillCurrencies(state: Filling, fields: SchemaField[]): void {
  const currencies = extractCurrencies(state.text, state.numbers, [...state.opaque, ...state.used]);
  state.assign(
    fields,
    currencies.map((c) => ({ value: c.code, span: c, hint: c.attached ? 'source' : state.hintOf(c) })),
  );
}

/** Units of measure; one written against the amount ("5 feet") is the source side. */
export function fillUnits(state: Filling, fields: SchemaField[]): void {
  const units = extractUnits(state.text, state.numbers, [...state.opaque, ...state.used, ...(state.takesDates ? state.dates : [])]);
  state.assign(
    fields,
    units.map((u) => ({ value: u.text, span: u, hint: u.attached ? 'source' : state.hintOf(u) })),
  );
}
