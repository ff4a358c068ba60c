import type { Span } from './argument-fill.types';
import { type CurrencyHit, currencySymbolAt, currencyWordAt } from './currency.lexicon';
import { overlaps } from './text-span.util';
import { SHORT_UNIT_WORDS, type UnitEntry, unitAt, unitRatioAt } from './unit.lexicon';

export interface NumberMention extends Span {
  value: number;
  /** Where the digits themselves are (the mention also spans its unit or currency). */
  digits: { start: number; end: number };
  /** The unit written right after the number ("5 miles", "20°C"), as written. */
  unit?: UnitEntry & Span;
  /** The currency written with the number ("$1,200.50", "100 USD", "50 euros"). */
  currency?: CurrencyHit & Span;
  /** The unit or currency is the next number's ("5 or 6 feet"), not written here. */
  shared?: boolean;
  /** "300K" read as kelvin rather than thousands. */
  kelvin?: number;
  /** A spelled number that counts the noun after it ("two nights"): the value of a field that counts that noun only. */
  counts?: string;
}

export interface UnitMention extends UnitEntry, Span {
  /** Written right after a number: the unit of that number. */
  attached: boolean;
}

export interface CurrencyMention extends CurrencyHit, Span {
  attached: boolean;
}

const NUMBER = /(?<![\w.^])([-−]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([eE][-+−]?\d{1,3}(?![\w.]))?(?:\s?(thousand|million|billion|bn|mn|k|K)(?![A-Za-z])|(m|M)(?=\s*(?:[A-Z]{3}\b|[$€£¥₹])))?/g;
const SCALE: Record<string, number> = { thousand: 1e3, k: 1e3, K: 1e3, million: 1e6, mn: 1e6, m: 1e6, M: 1e6, billion: 1e9, bn: 1e9 };

const UNITS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = 'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ');
const SPELLED: Record<string, number> = {
  ...Object.fromEntries(UNITS.map((w, i) => [w, i])),
  ...Object.fromEntries(TENS.map((w, i) => [w, 20 + 10 * i])),
  dozen: 12,
};
/** "ninety", "twenty-five", "one hundred and five", "two thousand": English number words, up to the thousands. */
const BELOW_HUNDRED = `(?:(?:${TENS.join('|')})(?:[-\\s](?:${UNITS.slice(1, 10).join('|')}))?|${UNITS.join('|')})`;
const BELOW_THOUSAND = `(?:${BELOW_HUNDRED}\\s+hundred(?:\\s+(?:and\\s+)?${BELOW_HUNDRED})?|hundred|${BELOW_HUNDRED})`;
const SPELLED_NUMBER = new RegExp(`(?<![\\w-])(half\\s+an?|an?\\s+half|a\\s+dozen|dozen|${BELOW_THOUSAND}(?:\\s+thousand(?:\\s+(?:and\\s+)?${BELOW_THOUSAND})?)?|thousand)(?![\\w])`, 'gi');

/** The value of number words SPELLED_NUMBER read ("twenty-five" 25, "one hundred and five" 105, "two thousand" 2000). */
function spelledValue(words: string): number {
  let total = 0;
  let group = 0;
  for (const word of words.split(/[-\s]+/)) {
    if (word === 'and') continue;
    if (word === 'hundred') group = (group || 1) * 100;
    else if (word === 'thousand') {
      total += (group || 1) * 1000;
      group = 0;
    } else group += SPELLED[word] ?? 0;
  }
  return total + group;
}

/** A spelled number counts only where it counts something: before a unit or currency, after "top"/"first", or in "two-word". */
const COUNT_POINTER = /\b(?:top|first|last|next)\s+$/i;

/** Numbers with what they count: "5 miles", "3.5 kg", "20°C", "$1,200.50", "10k", "-40 °F". */
export function extractNumbers(text: string, taken: Span[] = []): NumberMention[] {
  const found: NumberMention[] = [];
  for (const m of text.matchAll(NUMBER)) {
    let start = m.index;
    const end = m.index + m[0].length;
    if (taken.some((t) => overlaps(t, { start, end }))) continue;
    // "3x^2 + 2x": a coefficient of a variable is part of a formula, not an amount.
    if (/^[xyz](?![A-Za-z])/.test(text.slice(end, end + 2))) continue;
    const scale = m[5] ?? m[6];
    const written = Number(`${m[1] ? '-' : ''}${m[2].replaceAll(',', '')}${m[3] ?? ''}${(m[4] ?? '').replace('−', '-')}`);
    let value = written * (scale ? SCALE[scale] : 1);
    let currency: NumberMention['currency'];
    // "$5", "US$ 5", "EUR 50" (a code before the amount needs the space: "EUR50" is rare and "ABC123" is an id)
    const prefix = /(?:US\$|C\$|CA\$|A\$|AU\$|NZ\$|HK\$|S\$|R\$|[$€£¥₹₩₽₺₪₱₫฿])\s?$|\b[A-Z]{3} $/.exec(text.slice(Math.max(0, start - 4), start));
    if (prefix) {
      const written = prefix[0].trimEnd();
      const hit = currencySymbolAt(written, 0) ?? currencyWordAt(written, 0);
      const at = start - prefix[0].length;
      if (hit && hit.text === written) currency = { ...hit, start: at, end: at + written.length };
    }
    if (currency && text.charAt(currency.start - 1) === '-') value = -Math.abs(value);
    // "$1.2M", "$5B", "€300k": after a currency sign a letter scales the amount.
    const scaled = currency && !scale ? /^(M|B|bn|mn|k|K)(?![A-Za-z])/.exec(text.slice(end)) : null;
    if (scaled) value *= scaled[1] === 'B' || scaled[1] === 'bn' ? 1e9 : scaled[1].toLowerCase() === 'k' ? 1e3 : 1e6;
    let cursor = end + (scaled ? scaled[0].length : 0);
    while (text.charAt(cursor) === ' ') cursor++;
    let unit: NumberMention['unit'];
    if (!currency) {
      const hit = currencySymbolAt(text, cursor) ?? currencyWordAt(text, cursor);
      if (hit) currency = { ...hit, start: cursor, end: cursor + hit.text.length };
    }
    // "2.5 pounds" is a weight or money: both readings stay, the field's kind picks one.
    const single = unitAt(text, cursor);
    const ratio = unitRatioAt(text, cursor);
    // "2021 in New York": "in" after a number is inches only where no word follows ("12 in", "5 in. wide").
    const inches = single?.text === 'in' && (/^in\s*[A-Za-z]/.test(text.slice(cursor, cursor + 12)) || currency) ? undefined : single;
    const unitHit = ratio && ratio.text.length > (inches?.text.length ?? 0) ? ratio : inches;
    if (unitHit) unit = { ...unitHit, start: cursor, end: cursor + unitHit.text.length };
    if (unit && currency && currency.start === cursor && unit.text.length > currency.text.length) currency = undefined;
    start = currency && currency.start < start ? currency.start : start;
    const last = Math.max(end + (scaled?.[0].length ?? 0), unit?.end ?? 0, currency?.end ?? 0);
    // "300K" is 300 kelvin or 300,000: the field it goes to decides (see kelvinReading).
    const kelvin = scale === 'K' && !currency ? { kelvin: written } : {};
    found.push({ start, end: last, text: text.slice(start, last), value, digits: { start: m.index, end }, unit, currency, ...kelvin });
  }
  for (const m of text.matchAll(SPELLED_NUMBER)) {
    const end = m.index + m[0].length;
    if (taken.some((t) => overlaps(t, { start: m.index, end })) || found.some((f) => overlaps(f, { start: m.index, end }))) continue;
    const word = m[1].toLowerCase().replace(/\s+/g, ' ');
    const value = word.includes('half') ? 0.5 : word === 'a dozen' ? 12 : spelledValue(word);
    let cursor = end;
    while (text.charAt(cursor) === ' ') cursor++;
    const unitHit = unitAt(text, cursor);
    const currencyHit = currencySymbolAt(text, cursor) ?? currencyWordAt(text, cursor);
    // "two nights", "four chords": a spelled number before a plural noun counts it. "One" is as often a
    // pronoun: it counts only the noun right after it ("one child"), and fills only a field named for that noun.
    const noun =
      word === 'one'
        ? /^\s+['"‘“]?(?!(?:is|was|has|does|of|as|and|or|but|to|for|in|on|at|by|with|from|that|which|who|whom|more|another|other|else|the|an?|per|plus|times|minus|less|than|way|thing)\b)([a-z]{3,})\b(?!['’-])/i.exec(
            text.slice(end, end + 24),
          )?.[1]
        : // "three personality traits", "ten major historical events": up to two modifiers before the plural noun, quoted or not.
          new RegExp(`^\\s+['"‘“]?(?:(?!${NOT_COUNTED})[a-z-]{2,}\\s+){0,2}?(?!${NOT_COUNTED})([a-z]{2,}s)\\b`, 'i').exec(text.slice(end, end + 48))?.[1];
    const pointed = COUNT_POINTER.test(text.slice(0, m.index)) || text.charAt(end) === '-';
    const counts = pointed || noun !== undefined;
    // "which one", "a dozen ideas": without a unit, currency or pointer the word is prose.
    if (!unitHit && !currencyHit && !counts) continue;
    const unit = unitHit && !SHORT_UNIT_WORDS.has(unitHit.text) ? { ...unitHit, start: cursor, end: cursor + unitHit.text.length } : undefined;
    const currency = currencyHit && !(unit && unit.text.length > currencyHit.text.length) ? { ...currencyHit, start: cursor, end: cursor + currencyHit.text.length } : undefined;
    if (!unit && !currency && !counts) continue;
    const last = Math.max(end, unit?.end ?? 0, currency?.end ?? 0);
    const counted = !pointed && !unit && !currency && noun ? { counts: noun.toLowerCase() } : {};
    found.push({ start: m.index, end: last, text: text.slice(m.index, last), value, digits: { start: m.index, end }, unit, currency, ...counted });
  }
  found.sort((a, b) => a.start - b.start);
  mergeFeetAndInches(text, found);
  // "5 or 6 feet", "for 10, 20 and 30 years": a bare number counts the same thing as the one it is listed with.
  for (let i = found.length - 2; i >= 0; i--) {
    const [here, next] = [found[i], found[i + 1]];
    // Only a unit or currency written after the amount ("5 or 6 dollars"): "in 2019 and $1.2M" shares nothing.
    const unit = next.unit && next.unit.start >= next.digits.end ? next.unit : undefined;
    const currency = next.currency && next.currency.start >= next.digits.end ? next.currency : undefined;
    if (!here.unit && !here.currency && (unit || currency) && LISTED.test(text.slice(here.end, next.start))) found[i] = { ...here, unit, currency, shared: true };
  }
  return found;
}

const LISTED = /^\s*(?:or|and|,|,\s*and|,\s*or)\s*$/i;

const FEET = /^(?:feet|foot|ft)$/i;
const INCHES = /^(?:inch|inches|in)$/i;
/** "6 feet 2 inches", "5 ft and 11 in": one length, in inches (the smaller unit written). */
function mergeFeetAndInches(text: string, found: NumberMention[]): void {
  for (let i = found.length - 2; i >= 0; i--) {
    const [feet, inches] = [found[i], found[i + 1]];
    if (!feet.unit || !inches.unit || !FEET.test(feet.unit.text) || !INCHES.test(inches.unit.text) || !/^\s*(?:,|and)?\s*$/i.test(text.slice(feet.end, inches.start))) continue;
    found.splice(i, 2, { ...inches, start: feet.start, text: text.slice(feet.start, inches.end), value: feet.value * 12 + inches.value, digits: { start: feet.digits.start, end: inches.digits.end } });
  }
}
/** Words after a spelled number that are no noun it counts ("four is …", "two of them", "three times"). */
const NOT_COUNTED = '(?:is|was|has|does|of|as|and|or|to|in|on|at|by|for|with|from|plus|times|minus|less|thus|this|his|its|us|yes|ours|yours|theirs)\\b';

const COUNTED_TIME = /\b(?:the|a|an|first|second|third|fourth|last|next|this|that|each|every|one|same)\s+$/i;
const TARGET_WORDS = /(?:(?:^|\s)(?:to|into|in|from|as|per)\s+(?:the\s+)?|(?:→|->|=>|=\s*\?\s*)\s*)$/i;

/** Units named anywhere: attached to a number, or after "to", "into", "in", "from" ("to km", "into Fahrenheit"). */
export function extractUnits(text: string, numbers: NumberMention[], taken: Span[] = []): UnitMention[] {
  const found: UnitMention[] = numbers.filter((n) => n.unit && !n.shared).map((n) => ({ ...(n.unit as UnitEntry & Span), attached: true }));
  for (const m of text.matchAll(/(?<![\w°^/])(?=[°℃℉A-Za-zµμ])/g)) {
    const hit = unitAt(text, m.index);
    if (!hit) continue;
    const span = { start: m.index, end: m.index + hit.text.length };
    if (found.some((f) => overlaps(f, span)) || taken.some((t) => overlaps(t, span)) || numbers.some((n) => overlaps(n, span))) continue;
    const cue = TARGET_WORDS.test(text.slice(Math.max(0, m.index - 12), m.index));
    if (SHORT_UNIT_WORDS.has(hit.text) && (!cue || hit.text === 'in')) continue;
    // "the second circle", "on the first day": a time word after an ordinal or article counts something, it names no unit.
    if (hit.quantity === 'time' && !cue && COUNTED_TIME.test(text.slice(Math.max(0, m.index - 12), m.index))) continue;
    found.push({ ...hit, ...span, text: hit.text, attached: false });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Currencies named anywhere: with an amount, or as a code or name ("to EUR", "in yen"). */
export function extractCurrencies(text: string, numbers: NumberMention[], taken: Span[] = []): CurrencyMention[] {
  const found: CurrencyMention[] = numbers.filter((n) => n.currency && !n.shared).map((n) => ({ ...(n.currency as CurrencyHit & Span), attached: true }));
  for (const m of text.matchAll(/(?<![\w$€£¥₹])(?=[A-Za-z$€£¥₹₩₽₺₪₱₫฿])/g)) {
    const hit = currencyWordAt(text, m.index) ?? currencySymbolAt(text, m.index);
    if (!hit) continue;
    const span = { start: m.index, end: m.index + hit.text.length };
    if (found.some((f) => overlaps(f, span)) || taken.some((t) => overlaps(t, span)) || numbers.some((n) => overlaps(n, span))) continue;
    found.push({ ...hit, ...span, attached: false });
  }
  return found.sort((a, b) => a.start - b.start);
}
