// Numbers, currencies and units: the amounts a task writes and what they are measured in.
import type { JsonSchema } from '@toolgate/sdk';
import { countedHead, countedNameWords, type Filling, fieldScore, joinedAsList, shareListScores } from './filling.state';
import { extractCurrencies, extractUnits, type NumberMention } from './number.extractor';
import { fieldFamily, holdsIdentifier, type SchemaField } from './schema.fields';
import { contentWords, escapeRegExp, stem, wordMatches } from './text-span.util';

/** A year as people write one in a request. */
const YEAR = /^(?:1[5-9]|20)\d\d$/;

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

/** "5%", "5 percent": the number is a percentage. */
const isPercentage = (text: string, mention: NumberMention) => /^\s?(?:%|percent\b|per cent\b)/i.test(text.slice(mention.digits.end));

/** "5%" for a rate the description does not call a percentage is the fraction 0.05. */
function asFraction(text: string, field: SchemaField, mention: NumberMention): boolean {
  if (!isPercentage(text, mention)) return false;
  const description = String(field.schema.description ?? '');
  return (field.schema as { type?: string }).type === 'number' && (/\bdecimal|\bfraction/i.test(description) || !/percent|%/i.test(`${field.name} ${description}`));
}

/** A field about temperatures reads "300K" as 300 kelvin, any other as 300,000. */
const aboutTemperature = (field: SchemaField) => [...field.nameWords, ...field.descriptionWords].some((w) => /^(?:kelvin|temperature|temp)$/.test(w));

function numericValue(text: string, field: SchemaField, mention: NumberMention): number | undefined {
  const written = mention.kelvin !== undefined && aboutTemperature(field) ? mention.kelvin : mention.value;
  let value = asFraction(text, field, mention) ? Number((written / 100).toPrecision(12)) : written;
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

/**
 * The field says it is measured in the unit written: "10 meters/second" for "in meters/second", "5
 * seconds" for "in seconds" — but not for "in meters/second", whose seconds divide.
 */
/** Words a field's name uses for a quantity the unit lexicon knows ("duration" is a time, "weight" a mass). */
const QUANTITY_NAMES: Record<string, readonly string[]> = {
  time: ['time', 'duration', 'period', 'interval', 'elapsed', 'delay', 'timeout'],
  length: ['length', 'distance', 'height', 'width', 'depth', 'radius', 'diameter', 'altitude', 'elevation', 'thickness'],
  mass: ['mass', 'weight'],
  speed: ['speed', 'velocity'],
  temperature: ['temperature', 'temp'],
  volume: ['volume'],
  area: ['area'],
  energy: ['energy'],
  pressure: ['pressure'],
  power: ['power'],
};

/** The quantity a field's name says it holds, when it says exactly one. */
function namedQuantity(field: SchemaField): string | undefined {
  const named = Object.entries(QUANTITY_NAMES).filter(([, words]) => countedNameWords(field).some((w) => words.includes(w)));
  return named.length === 1 ? named[0][0] : undefined;
}

/** A field its words call a percentage or a rate ("The annual depreciation rate in percentage"). */
const aboutShare = (field: SchemaField) => [...field.nameWords, ...field.descriptionWords].some((w) => /^(?:percent|percentage|percentages|rate|rates|ratio|proportion|fraction)$/.test(w));
/** A field its words call an amount of money ("The initial cost of the property"). */
const aboutMoney = (field: SchemaField) =>
  [...field.nameWords, ...field.descriptionWords].some((w) => /^(?:cost|costs|price|prices|principal|salary|income|revenue|budget|fee|fees|payment|balance|investment|deposit)$/.test(w));

/**
 * How a number's unit fits a field: +2.5 when the field's description writes the unit, +0.5 when the
 * field names its quantity ("5 seconds" for `duration`), undefined (never its value) when the field
 * names another quantity ("5 seconds" is no `initial_velocity`, "20 kg" no `temperature1`), else 0.
 */
function unitFit(text: string, field: SchemaField, mention: NumberMention): number | undefined {
  // "for $500,000 … the rate is 2%": an amount of money is no percentage, a percentage no amount of money.
  const words = `${field.name} ${field.schema.description ?? ''}`;
  if (mention.currency && aboutShare(field) && !aboutMoney(field) && /percent/i.test(words)) return undefined;
  if (isPercentage(text, mention) && aboutMoney(field) && !aboutShare(field) && !/%|percent|decimal|fraction/i.test(words)) return undefined;
  const { unit } = mention;
  // "in 2022" for a `year` (or year1, year2): a bare four-digit year is its value, an amount of money never is.
  if (countedHead(field) === 'year') {
    if (mention.currency) return undefined;
    if (!unit && YEAR.test(mention.text)) return 2.5;
  }
  if (mention.kelvin !== undefined && aboutTemperature(field)) return 2.5;
  if (!unit) return 0;
  // "10 years" is no `compounds_per_year`: a rate per year never takes an amount of years.
  const per = field.nameWords.indexOf('per');
  if (per >= 0 && field.nameWords.slice(per + 1).some((w) => wordMatches(w, stem(unit.text)))) return undefined;
  if (measuredIn(field, unit.text)) return 2.5;
  const quantity = namedQuantity(field);
  if (!quantity || !(unit.quantity in QUANTITY_NAMES)) return 0;
  // Every length fits a `height` alike: the kind tells which amounts may go there, the words which one does.
  return quantity === unit.quantity ? 0.5 : undefined;
}

function measuredIn(field: SchemaField, unit: string): boolean {
  const description = String(field.schema.description ?? '');
  if (unit.includes('/')) return new RegExp(`(?<![\\w/])${escapeRegExp(unit)}(?![\\w^/²³])`, 'i').test(description);
  const undivided = contentWords(description.replace(/(?:\/|\bper\s+)[A-Za-z]+/g, ' '));
  return [...countedNameWords(field), ...undivided].some((w) => wordMatches(w, stem(unit)));
}

/**
 * Numbers written as tuples, "(45, 60) and (81, 27)" or "the point (3, 4)", for as many required
 * number fields as each tuple holds: the fields take a tuple's numbers in order, and several tuples
 * are one call each. Returns true when it filled the fields.
 */
function fillTuples(state: Filling, fields: SchemaField[]): boolean {
  // The fields in schema order; a tuple fills as many as it holds ("(9, 12, 15)" fills an optional z too),
  // never fewer than the required ones.
  const required = fields.filter((f) => f.required);
  const lastRequired = Math.max(...required.map((f) => fields.indexOf(f)));
  if (required.length < 2 || lastRequired !== required.length - 1) return false;
  const free = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' }) && !n.unit && !n.currency);
  const tuples: NumberMention[][] = [];
  for (const m of state.text.matchAll(/\(([^()]*)\)/g)) {
    const inside = free.filter((n) => n.start > m.index && n.end < m.index + m[0].length);
    const between = inside.slice(1).map((n, k) => state.text.slice(inside[k].end, n.start));
    if (
      inside.length > 0 &&
      between.every((gap) => /^\s*,\s*$/.test(gap)) &&
      /^\(\s*$/.test(state.text.slice(m.index, inside[0].start)) &&
      /^\s*\)$/.test(state.text.slice(inside[inside.length - 1].end, m.index + m[0].length))
    ) {
      tuples.push(inside);
    }
  }
  if (tuples.length === 0 || tuples.some((t) => t.length < required.length || t.length > fields.length)) return false;
  const calls = tuples.map((tuple) => Object.fromEntries(tuple.map((mention, i) => [fields[i].name, numericValue(state.text, fields[i], mention)])));
  if (calls.some((call) => Object.values(call).some((v) => v === undefined))) return false;
  for (const [i, mention] of tuples[0].entries()) state.set(fields[i], { value: calls[0][fields[i].name], span: mention });
  for (const tuple of tuples.slice(1)) state.used.push(...tuple);
  if (calls.length > 1) state.fill.each = calls;
  return true;
}

interface NumberPair {
  field: SchemaField;
  mention: NumberMention;
  value: number;
  score: number;
}

/** "between 1 and 1000", "from 2 to 5", "1-1000": the two ends of a range, low first. */
const RANGE = /\b(?:between\s+(\S+)\s+and\s+(\S+)|from\s+(\S+)\s+(?:to|until|till|through)\s+(\S+))/gi;

/**
 * A range written as "between A and B" or "from A to B" gives its two ends to the one pair of number fields that
 * are a range's low and high ends (`lower_limit`/`upper_limit`, "The start of the range"/"The end of the range"),
 * whatever other numbers the text holds.
 */
function fillRange(state: Filling, fields: SchemaField[]): void {
  const low = fields.filter((f) => f.role === 'source' && state.isOpen(f));
  const high = fields.filter((f) => f.role === 'target' && state.isOpen(f));
  if (low.length !== 1 || high.length !== 1) return;
  const free = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' }));
  const at = (position: number) => free.find((n) => n.start === position);
  const ranges = [...state.text.matchAll(RANGE)].flatMap((m) => {
    const [a, b] = m[1] !== undefined ? [m[1], m[2]] : [m[3], m[4]];
    const from = at(m.index + m[0].indexOf(a, m[0].search(/\s/)));
    const to = at(m.index + m[0].lastIndexOf(b));
    return from && to ? [{ from, to }] : [];
  });
  if (ranges.length !== 1) return;
  const [{ from, to }] = ranges;
  const [lowValue, highValue] = [numericValue(state.text, low[0], from), numericValue(state.text, high[0], to)];
  if (lowValue === undefined || highValue === undefined) return;
  state.set(low[0], { value: lowValue, span: from });
  state.set(high[0], { value: highValue, span: to });
}

const LOW_END = /^(?:min|minimum|low|lower|lowest|from|start|floor)(?:[A-Z_]|$)/;
const HIGH_END = /^(?:max|maximum|high|higher|highest|upper|to|end|ceiling)(?:[A-Z_]|$)/;
const numeric = (schema: JsonSchema | undefined) => schema?.type === 'number' || schema?.type === 'integer';

/**
 * An object field made of a range's two ends (`budget: {min, max}`) takes the one range written
 * ("a budget range of $500,000 to $800,000", "between 2 and 5"): two free amounts joined by to/and/a dash.
 */
export function fillRangeObjects(state: Filling, fields: SchemaField[]): void {
  for (const field of fields.filter((f) => state.isOpen(f) && f.schema.type === 'object')) {
    const properties = (field.schema.properties ?? {}) as Record<string, JsonSchema>;
    const names = Object.keys(properties);
    const low = names.find((n) => LOW_END.test(n) && numeric(properties[n]));
    const high = names.find((n) => HIGH_END.test(n) && numeric(properties[n]));
    if (!low || !high || names.length !== 2) continue;
    const free = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' })).sort((a, b) => a.start - b.start);
    const ranges = free.slice(1).flatMap((to, i) => {
      const from = free[i];
      const joint = state.text.slice(from.end, to.start);
      const alike = Boolean(from.currency) === Boolean(to.currency) || from.shared === true;
      return alike && /^\s*(?:to|and|through|-|–)\s*$/i.test(joint) && from.value <= to.value ? [{ from, to }] : [];
    });
    if (ranges.length !== 1) continue;
    const [{ from, to }] = ranges;
    const span = { start: from.start, end: to.end, text: state.text.slice(from.start, to.end) };
    state.set(field, { value: { [low]: from.value, [high]: to.value }, span });
    state.used.push(from, to);
  }
}

/** A clock time: "11 PM", "9:30am", "22:00". */
const CLOCK = /\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})(?!:?\d)/gi;

/**
 * A whole-number field for an hour of the day (`closing_hour`, "… in 24 hour format") takes the hour of the one clock
 * time written: "until 11 PM" is 23, "22:00" is 22.
 */
function fillClockHour(state: Filling, fields: SchemaField[], all: SchemaField[]): void {
  // Beside a minutes field the hour is the clock face's ("6:30 PM" is 6 and 30), not the day's.
  const clockFace = all.some((f) => f.nameWords.some((w) => w === 'minute' || w === 'minutes'));
  const hourly = fields.filter((f) => state.isOpen(f) && !clockFace && (f.nameWords.some((w) => w === 'hour' || w === 'hours') || /\b24[- ]hour\b/i.test(String(f.schema.description ?? ''))));
  if (hourly.length !== 1) return;
  const times = [...state.text.matchAll(CLOCK)].filter((m) => state.isFree({ start: m.index, end: m.index + m[0].length, text: m[0] }));
  if (times.length !== 1) return;
  const [m] = times;
  const hour = m[1] !== undefined ? (Number(m[1]) % 12) + (m[3].toLowerCase() === 'p' ? 12 : 0) : Number(m[4]);
  if (hour > 23 || (m[1] !== undefined && Number(m[1]) > 12)) return;
  state.set(hourly[0], { value: hour, span: { start: m.index, end: m.index + m[0].length, text: m[0] } });
}

/** An hour and a minutes field (a clock face) take each clock time written: "at 3:15" is 3 and 15; "at 8:20 and 11:50" is a call each. */
function fillClockFace(state: Filling, fields: SchemaField[]): void {
  const named = (words: string[]) => fields.filter((f) => state.isOpen(f) && f.nameWords.some((w) => words.includes(w)));
  const [hours, minutes] = [named(['hour', 'hours']), named(['minute', 'minutes'])];
  if (hours.length !== 1 || minutes.length !== 1) return;
  const times = [...state.text.matchAll(CLOCK)]
    .map((m) => ({ hour: Number(m[1] ?? m[4]), minute: Number(m[2] ?? m[5] ?? 0), span: { start: m.index, end: m.index + m[0].length, text: m[0] } }))
    .filter((t) => state.isFree(t.span) && t.hour <= 23 && t.minute <= 59);
  if (times.length === 0) return;
  const calls = times.map((t) => ({ [hours[0].name]: t.hour, [minutes[0].name]: t.minute }));
  state.set(hours[0], { value: times[0].hour, span: times[0].span });
  state.set(minutes[0], { value: times[0].minute, span: times[0].span });
  state.used.push(...times.map((t) => t.span));
  if (calls.length > 1) state.fill.each = calls;
}

/** A field for a probability (`probability_of_success`, `prob`, "Probability of …"). */
const isProbability = (field: SchemaField): boolean => field.nameWords.some((w) => w === 'probability' || w === 'prob') || /^(?:the\s+)?probability\b/i.test(String(field.schema.description ?? ''));

/** A noun, a word that labels a code, then the number: "account number - 987654", "order no. 12", "case ID: 4471". */
const CODE_LABEL = /\b([a-z]+)\s+(?:number|no\.?|id|code)\s*[-:#]?\s*$/i;

/** The numbers written as the code of a thing an identifier field of the tool is named after. */
function labelledCodes(state: Filling, numbers: NumberMention[], all: SchemaField[]): Set<NumberMention> {
  const owners = all.filter(holdsIdentifier);
  return new Set(
    numbers.filter((n) => {
      const noun = CODE_LABEL.exec(state.text.slice(Math.max(0, n.start - 40), n.start))?.[1];
      return noun !== undefined && owners.some((f) => f.nameWords.some((w) => wordMatches(w, stem(noun))));
    }),
  );
}

export function fillNumbers(state: Filling, written: SchemaField[], all: SchemaField[]): void {
  fillClockFace(state, written);
  fillClockHour(state, written, all);
  fillRange(state, written);
  const fields = written.filter((f) => state.isOpen(f));
  if (fillTuples(state, fields)) return;
  const numbers = state.numbers.filter((n) => state.isFree({ ...n.digits, text: '' }));
  const quantityField = (f: SchemaField) => all.some((g) => (g.kind === 'unit' || g.kind === 'currency') && g !== f) && f.required;
  const pairs: NumberPair[] = [];
  const labelled = labelledCodes(state, numbers, all);
  const sides = new Set(numbers.map((n) => state.hintOf(n)));
  const bothSides = sides.has('source') && sides.has('target');
  for (const field of fields) {
    for (const mention of numbers) {
      const value = numericValue(state.text, field, mention);
      if (value === undefined) continue;
      // "account number - 987654" beside an account_id field is that account, no amount.
      if (labelled.has(mention) && !holdsIdentifier(field)) continue;
      const fit = unitFit(state.text, field, mention);
      if (fit === undefined) continue;
      // "2 moles at 300 K" beside a temperature field: the K is kelvin, never a count in thousands for another field.
      if (mention.kelvin !== undefined && !aboutTemperature(field) && all.some(aboutTemperature)) continue;
      // "two nights" is the value of `num_nights` (the noun its name ends on); "two numbers" (number1,
      // number2) counts the fields themselves, "two notes" is no `first_note_frequency`.
      if (mention.counts && (fieldFamily(field) !== field.name || !countsNoun(field, stem(mention.counts)))) continue;
      // A probability is at most 1 (a percentage is read as its fraction before this): "exactly 5 heads" is no probability.
      if (isProbability(field) && typeof value === 'number' && value > 1) continue;
      let score = fieldScore(state, field, mention) + fit;
      if (quantityField(field) && (mention.unit || mention.currency)) score += 3;
      if (quantityField(field) && !mention.unit && !mention.currency && all.some((g) => g.kind === 'unit') && numbers.some((n) => n.unit)) score -= 1;
      pairs.push({ field, mention, value, score });
    }
  }
  shareListScores(state.text, pairs, (p) => p.mention);
  // "from 25 °C to 100 °C" for initial_/final_temperature: the side the words give, when they give both (after
  // the list's shared scores: "between 300 and 400" is a pair of ends, not a list).
  for (const pair of bothSides ? pairs : []) if (pair.field.role && state.hintOf(pair.mention) === pair.field.role) pair.score += 2;
  pairs.sort((a, b) => b.score - a.score || a.mention.start - b.mention.start);
  const done = new Set<SchemaField>();
  // "5 feet or 6 feet to meters": two measured amounts for one quantity is a question.
  for (const field of fields.filter(quantityField)) {
    const measuredPairs = pairs.filter((p) => p.field === field && (p.mention.unit || p.mention.currency));
    const best = Math.max(...measuredPairs.map((p) => p.score));
    // The words or the unit may single one out ("a distance of 50 km for 2 hours"); else it is a question.
    const top = measuredPairs.filter((p) => p.score === best).filter((p, i, all) => all.findIndex((q) => q.value === p.value) === i);
    if (top.length > 1) {
      const options = top.sort((a, b) => a.mention.start - b.mention.start);
      state.ambiguous(
        field,
        options.map((p) => p.value),
        options.map((p) => p.mention),
      );
      done.add(field);
    }
  }
  const taken = new Set<NumberMention>();
  fillAlike(state, fields, pairs, done, taken);
  for (const pair of pairs) {
    if (pair.score <= 0 || done.has(pair.field) || taken.has(pair.mention)) continue;
    const rivals = pairs.filter((p) => p.field === pair.field && p.score === pair.score && !taken.has(p.mention) && p.value !== pair.value);
    done.add(pair.field);
    if (rivals.length > 0) {
      // Once the field has rival values, every free number written like them is one too: "the president in 1980
      // and 2016, and the vice president in 1975 and 2011" gives four years, whatever words sit nearer which.
      // Not a number the words point at another field more than at this one ("a base of 10 and a height of 5").
      const bestFieldScore = (mention: NumberMention) => Math.max(...pairs.filter((p) => p.mention === mention).map((p) => p.score));
      // And only an item of a list of its own: a lone "for 10 years" beside "the first 2, 3 and 5 years" is context.
      const listed = (mention: NumberMention) =>
        numbers.some((other) => other !== mention && writtenAlike(other, mention) && joinedAsList(state.text, other.start < mention.start ? [other, mention] : [mention, other]));
      const alikeRivals = pairs.filter(
        (p) =>
          p.field === pair.field &&
          !taken.has(p.mention) &&
          (p.score === pair.score || (p.score > 0 && writtenAlike(p.mention, pair.mention) && p.score >= bestFieldScore(p.mention) && listed(p.mention))),
      );
      const options = alikeRivals.filter((p, i) => alikeRivals.findIndex((q) => q.value === p.value) === i).sort((a, b) => a.mention.start - b.mention.start);
      // Every mention keeps its place, a value written twice too ("c = 3 … c = 3"): each may be its own call's.
      const mentions = [...alikeRivals].sort((a, b) => a.mention.start - b.mention.start);
      state.ambiguous(
        pair.field,
        options.map((o) => o.value),
        mentions.map((o) => o.mention),
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
  if (unpointed.length > 1 && leftover.length === unpointed.length) fillInOrder(state, unpointed, leftover, pairs, done, taken);
  for (const field of fields.filter((f) => f.required && !done.has(f))) {
    const left = pairs.filter((p) => p.field === field && !taken.has(p.mention) && p.score >= 0);
    const values = [...new Set(left.map((p) => p.value))];
    if (values.length === 1) {
      taken.add(left[0].mention);
      state.set(field, { value: left[0].value, span: left[0].mention });
    } else if (values.length > 1)
      // Each value where it is written, when it is written once: the places may say how they group.
      state.ambiguous(field, values, left.length === values.length ? left.map((p) => p.mention).sort((a, b) => a.start - b.start) : undefined);
  }
}

/**
 * Fields the words point at alike ("two numbers: 40 and 50" for num1 and num2; "masses of 20 kg and
 * 15 kg" for mass1 and mass2) take as many values as there are of them, in the order both are
 * written: the schema's order is the tool's own (first, second).
 */
function fillAlike(state: Filling, fields: SchemaField[], pairs: NumberPair[], done: Set<SchemaField>, taken: Set<NumberMention>): void {
  const groups = new Map<string, SchemaField[]>();
  for (const field of fields) {
    if (done.has(field)) continue;
    // The values the field's words and units point at most ("at 300 K" for a temperature, not "2 moles of gas").
    const scored = pairs.filter((p) => p.field === field && p.score > 0);
    const best = Math.max(...scored.map((p) => p.score));
    const pointed = scored.filter((p) => p.score === best);
    if (pointed.length < 2) continue;
    const key = pointed
      .sort((a, b) => a.mention.start - b.mention.start)
      .map((p) => `${p.mention.start}:${p.score}:${p.value}`)
      .join(' ');
    groups.set(key, [...(groups.get(key) ?? []), field]);
  }
  for (const group of groups.values()) {
    const best = Math.max(...pairs.filter((p) => p.field === group[0]).map((p) => p.score));
    const mentions = [...new Set(pairs.filter((p) => p.field === group[0] && p.score > 0 && p.score === best).map((p) => p.mention))].sort((a, b) => a.start - b.start);
    if (group.length < 2 || mentions.length !== group.length || mentions.some((m) => taken.has(m))) continue;
    fillInOrder(state, group, mentions, pairs, done, taken);
  }
}

/** The k-th field takes the k-th mention. */
function fillInOrder(state: Filling, fields: SchemaField[], mentions: NumberMention[], pairs: NumberPair[], done: Set<SchemaField>, taken: Set<NumberMention>): void {
  fields.forEach((field, i) => {
    const pair = pairs.find((p) => p.field === field && p.mention === mentions[i]);
    if (!pair) return;
    taken.add(pair.mention);
    done.add(field);
    state.set(field, { value: pair.value, span: pair.mention });
  });
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
/** What a unit field measures, by the quantity its name or description names ("The unit to return the velocity in"). */
const QUANTITY_WORDS: [string, RegExp][] = [
  ['speed', /\b(?:velocity|velocities|speeds?)\b/i],
  ['temperature', /\btemperatures?\b/i],
  ['mass', /\b(?:weights?|mass(?:es)?)\b/i],
  ['area', /\bareas?\b/i],
  ['volume', /\bvolumes?\b/i],
  ['energy', /\benergy\b/i],
  ['pressure', /\bpressures?\b/i],
  ['power', /\bpower\b/i],
  ['length', /\b(?:distances?|lengths?|heights?|widths?|depths?)\b/i],
  ['time', /\b(?:durations?|time)\b/i],
];
function measuredQuantity(field: SchemaField): string | undefined {
  const words = `${field.nameWords.join(' ')} ${field.schema.description ?? ''}`;
  const named = QUANTITY_WORDS.filter(([, pattern]) => pattern.test(words));
  return named.length === 1 ? named[0][0] : undefined;
}

export function fillUnits(state: Filling, fields: SchemaField[]): void {
  let units = extractUnits(state.text, state.numbers, [...state.opaque, ...state.used, ...(state.takesDates ? state.dates : [])]);
  // "… cover 120 km on the first day … in km/h" for the unit of a velocity: a day is no unit of speed.
  const measured = new Set(fields.map(measuredQuantity));
  const [quantity] = measured;
  if (measured.size === 1 && quantity !== undefined) units = units.filter((u) => u.quantity === quantity);
  // One unit field with no side (the unit of the answer): the units the amounts are written in are
  // theirs, not an answer's, unless they are all one unit and nothing else is named ("12 m by 15 m").
  if (fields.length === 1 && !fields[0].role) {
    const named = units.filter((u) => !u.attached);
    units = named.length > 0 ? named : new Set(units.map((u) => u.text.toLowerCase())).size === 1 ? units : [];
  }
  state.assign(
    fields,
    units.map((u) => ({ value: u.text, span: u, hint: u.attached ? 'source' : state.hintOf(u) })),
  );
}

/** What one of each spelled period holds, in the units a count field may be in: exact conversions only (no month in days). */
const PERIODS: Record<string, Partial<Record<TimeUnit, number>>> = {
  day: { day: 1 },
  week: { day: 7, week: 1 },
  fortnight: { day: 14, week: 2 },
  month: { month: 1 },
  quarter: { month: 3 },
  year: { month: 12, year: 1 },
  decade: { year: 10, month: 120 },
  century: { year: 100 },
};
type TimeUnit = 'day' | 'week' | 'month' | 'year';
const PERIOD = /\b(?:the\s+)?(?:next|past|last|coming|upcoming|following|previous|this)\s+(day|week|fortnight|month|quarter|year|decade|century)\b/gi;

/** The time unit a number field counts, by its name ("days", "num_months") or description ("in years"). */
function countedUnit(field: SchemaField): TimeUnit | undefined {
  const units: TimeUnit[] = ['day', 'week', 'month', 'year'];
  const named = countedHead(field);
  const byName = units.find((u) => named !== undefined && wordMatches(u, named));
  if (byName) return byName;
  const described = /\b(?:in|number of|how many)\s+(day|week|month|year)s?\b/i.exec(String(field.schema.description ?? ''));
  return described ? (described[1].toLowerCase() as TimeUnit) : undefined;
}

/**
 * "for the next week" to a field counting days is 7, "over the past decade" to one counting years 10:
 * a period written in words fills the one open number field that counts time, when it converts exactly.
 */
export function fillPeriods(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => state.isOpen(f) && countedUnit(f));
  if (open.length !== 1) return;
  const [field] = open;
  const unit = countedUnit(field) as TimeUnit;
  const found = [...state.text.matchAll(PERIOD)]
    .map((m) => ({ value: PERIODS[m[1].toLowerCase()][unit], span: { start: m.index, end: m.index + m[0].length, text: m[0] } }))
    .filter((c): c is { value: number; span: { start: number; end: number; text: string } } => c.value !== undefined && state.isFree(c.span));
  state.single(field, found);
}

const FROM_REST = /\b(?:from|at)\s+rest\b|\b(?:dropped|released)\b/i;

/** "starts from rest", "an object dropped from 100 m": a starting velocity or speed the words give as zero. */
export function fillRestStart(state: Filling, fields: SchemaField[]): void {
  const rest = FROM_REST.exec(state.text);
  if (!rest) return;
  for (const field of fields) {
    const words = countedNameWords(field);
    const starting = words.some((w) => w === 'initial' || w === 'start' || w === 'starting');
    const moving = words.some((w) => w === 'velocity' || w === 'speed');
    if (!starting || !moving || !state.isOpen(field)) continue;
    state.fill.arguments[field.name] = 0;
    state.fill.evidence[field.name] = rest[0];
  }
}

/** Two numbers written the same way: amounts of one quantity or currency (or bare), both years or neither, both counting or neither. */
function writtenAlike(a: NumberMention, b: NumberMention): boolean {
  const year = (m: NumberMention) => Number.isInteger(m.value) && m.value >= 1000 && m.value <= 2999 && m.digits.end - m.digits.start === 4;
  return a.unit?.quantity === b.unit?.quantity && a.currency?.code === b.currency?.code && year(a) === year(b) && !a.counts === !b.counts;
}

/** The field counts this noun: its name ends on it, or a count field's description opens on it ("number_of_beds": "Number of bedrooms"). */
function countsNoun(field: SchemaField, noun: string): boolean {
  if (wordMatches(countedNoun(field) ?? '', noun)) return true;
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const counted = /^\s*(?:the\s+)?(?:number|count|total|amount|quantity)\s+of\s+(?:the\s+)?([a-z]+)/i.exec(description)?.[1];
  return counted !== undefined && wordMatches(stem(counted), noun);
}

/** Name words that say a field is a count, not what it counts ("trait_count", "number_of_results"). */
const COUNT_WORDS = new Set(['count', 'number', 'num', 'total', 'amount', 'quantity', 'limit', 'n', 'no']);

/** The noun a count field counts: the last word of its name that is not a count word ("trait" of trait_count, "night" of num_nights). */
function countedNoun(field: SchemaField): string | undefined {
  return countedNameWords(field)
    .filter((w) => !COUNT_WORDS.has(w) && !/^\d+$/.test(w))
    .at(-1);
}
