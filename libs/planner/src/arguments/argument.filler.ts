import type { JsonSchema } from '@toolgate/sdk';
import { DateTime } from 'luxon';
import { instructionAimedAtSystem } from '../deterministic/instruction.detector';
import type { ArgumentFill, ArgumentFillContext } from './argument-fill.types';
import { fillBoolean, fillEnums } from './choice.filler';
import { spreadClauses } from './clause.spreader';
import { extractDates } from './date-time.extractor';
import { fillDates, fillImpliedSourceZone, fillZones } from './date-time.filler';
import { fillQuotedLists, fillWordLists, widenEnumerations } from './enumeration.filler';
import { Filling, joinedAsList } from './filling.state';
import { fillCountedItems, fillNumberList, fillNumberMap, fillOperations, fillPolynomial, fillPolynomialTerms, fillSortKeys, fillStringList } from './list.filler';
import { fillCurrencies, fillNumbers, fillPeriods, fillRangeObjects, fillRestStart, fillUnits } from './number.filler';
import { fillExampleLists, fillNameLists, fillPhrases } from './phrase.filler';
import { placeFormat, withRegion } from './place.gazetteer';
import { fillResidual } from './residual.filler';
import { spreadLegs } from './route.spreader';
import { refusedArguments } from './schema.check';
import { describedCodes, type SchemaField, schemaFields, statedDefault } from './schema.fields';
import { fillAddress, fillCodeLists, fillDimensions, fillEmails, fillExpression, fillIdentifiers, fillNamedValues, fillPath, fillPersonName, fillTexts, fillUrl, fillYears } from './string.filler';
import { overlaps, stem, wordMatches } from './text-span.util';

/**
 * Fills a tool's arguments from a task's words by the tool's input schema: what each field wants
 * (its type, format, enum, name and description) picks among the values the text offers. Pure and
 * deterministic; a value the text does not give is missing, two equally plausible ones are ambiguous.
 */
export function fillArguments(written: string, inputSchema: JsonSchema, given: ArgumentFillContext): ArgumentFill {
  const { text, context } = withStatedToday(unquoted(written), given);
  const fields = schemaFields(inputSchema);
  const state = fillState(text, inputSchema, fields, context);
  pairNamedLists(state, fields);
  pairRivalGroups(state, fields);
  spreadLists(state);
  const fillClause = (clause: string) => fillState(clause, inputSchema, fields, context);
  const spread = spreadLegs(state, fields, fillClause) ?? spreadClauses(state, fields, fillClause);
  if (spread) return spread;
  reportMissing(state, fields);
  return state.fill;
}

const STATED_TODAY = /\b(?:today is|today's date is|the date today is|the current date is)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?/i;

/**
 * "… for today, yesterday and the day before. Today is May 5, 2023": the day the writer says it is, is the day
 * relative dates count from. The statement is context, not a value: its words are blanked (offsets kept), so
 * "the weather in New York tomorrow? today is 2023.10.1" is one call for October 2, not a second one for the 1st.
 */
function withStatedToday(text: string, context: ArgumentFillContext): { text: string; context: ArgumentFillContext } {
  const said = STATED_TODAY.exec(text);
  if (!said || !context.referenceTime) return { text, context };
  const at = said.index + said[0].length;
  // The weekday may be read as part of the date ("Tuesday April 25th 2023" is one mention of one day).
  const opening = said.index + (/^[\s\S]*?\bis\s+/i.exec(said[0])?.[0].length ?? 0);
  const stated = extractDates(text, context.referenceTime, context.timeZone).find((d) => d.start >= opening && d.start <= at && d.options.length === 1 && !d.timeOnly);
  if (!stated) return { text, context };
  // The writer's day at the reference's time of day: "tomorrow" stays a calendar day.
  const day = stated.options[0];
  const now = DateTime.fromJSDate(context.referenceTime, { zone: day.zoneName ?? context.timeZone });
  // "today is 2023-10-1 monday": a weekday after the date belongs to the statement too.
  const end = stated.end + (/^,?\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/i.exec(text.slice(stated.end))?.[0].length ?? 0);
  return {
    text: `${text.slice(0, said.index)}${' '.repeat(end - said.index)}${text.slice(end)}`,
    context: { ...context, referenceTime: day.set({ hour: now.hour, minute: now.minute, second: now.second }).toJSDate() },
  };
}

/** A request sent wrapped in quotes as a whole is the request, not a quotation: its values are read. */
function unquoted(text: string): string {
  const whole = /^\s*(["“])([^"“”]*)(["”])\s*$/.exec(text) ?? /^\s*(['‘])((?:[^'‘’]|(?<=\w)['’](?=\w))*)(['’])\s*$/.exec(text);
  return whole ? whole[2] : text;
}

function fillState(text: string, inputSchema: JsonSchema, fields: SchemaField[], context: ArgumentFillContext): Filling {
  const state = new Filling(
    text,
    context,
    fields.some((f) => f.kind === 'date' || f.kind === 'zone'),
  );
  const given = context.given ?? {};
  for (const [name, value] of Object.entries(given)) {
    state.fill.arguments[name] = value;
    state.fill.evidence[name] = 'given';
  }
  const open = (kind: SchemaField['kind']) => fields.filter((f) => f.kind === kind && !(f.name in given));

  // The order matters: each filler takes what it reads, and later ones see only what is left.
  for (const field of open('url')) fillUrl(state, field);
  fillEmails(state, open('email'));
  for (const field of open('path')) fillPath(state, field);
  // Before the numbers: an address's house number is no amount.
  fillAddress(state, open('text'));
  fillDimensions(state, [...open('text'), ...open('number-list')]);
  fillDates(state, open('date'), fields);
  fillZones(state, open('zone'));
  fillImpliedSourceZone(state, fields);
  fillCurrencies(state, open('currency'));
  fillUnits(state, open('unit'));
  for (const field of open('expression')) fillExpression(state, field);
  for (const field of open('number-map')) fillNumberMap(state, field);
  fillPolynomial(state, open('number-list'));
  fillPolynomialTerms(state, open('number'));
  fillCountedItems(state, [...open('number-list'), ...open('string-list'), ...open('other')]);
  fillNumberList(state, open('number-list'), open('number').length === 0);
  fillQuotedLists(state, open('string-list'));
  fillRangeObjects(state, open('other'));
  fillNumbers(state, open('number'), fields);
  fillPeriods(state, open('number'));
  // After the numbers: "an initial velocity of 5 m/s … dropped" keeps the 5 it was given.
  fillRestStart(state, open('number'));
  for (const field of [...open('enum'), ...open('enum-list')]) fillEnums(state, field);
  for (const field of open('boolean')) fillBoolean(state, field);
  for (const field of open('string-list')) fillStringList(state, field);
  for (const field of open('operation-list')) fillOperations(state, field);
  for (const field of open('sort-list')) fillSortKeys(state, field);
  fillYears(state, open('text'));
  fillPersonName(state, open('text'));
  // A formula the expression reader could not delimit ("the function 2x^2 at x = 1") is read as text.
  // A field of any type ("data": no type at all) takes a quote or a code-style name as a string does.
  const untyped = open('other').filter((f) => f.schema.type === undefined && f.schema.enum === undefined);
  const texts = [...open('text'), ...open('expression').filter((f) => state.isOpen(f)), ...untyped];
  fillTexts(state, texts, open('unit'));
  // A URL field takes a placeholder only when no URL is written (fillUrl left it open).
  fillIdentifiers(state, [...open('text'), ...open('url'), ...untyped.filter((f) => state.isOpen(f))]);
  fillNamedValues(state, open('text'));
  fillPhrases(state, [...texts, ...open('unit')]);
  fillExampleLists(state, open('string-list'));
  fillCodeLists(state, open('string-list'));
  fillNameLists(state, open('string-list'));
  fillWordLists(state, open('string-list'));
  const guessed = context.tool ? fillResidual(state, open('text'), fields, context.tool) : [];
  widenEnumerations(state, open('text'));

  toDescribedCodes(state, fields);
  toDescribedPlaceFormat(state, fields);
  dropInvalid(state, inputSchema);
  const kept = guessed.filter((f) => f.name in state.fill.arguments || state.fill.ambiguous.some((a) => a.path === `/${f.name}`)).map((f) => f.name);
  if (kept.length > 0) state.fill.guessed = kept;
  return state;
}

/**
 * "its base and height as 6cm and 10cm": fields named in a list, then as many values in a list that each of
 * them could take, pair in order. Only when the fields compete for exactly those values, each field's name
 * is written once before the first value, and the values are written as a list.
 */
function pairNamedLists(state: Filling, fields: SchemaField[]): void {
  const rivals = state.fill.ambiguous;
  if (rivals.length < 2) return;
  const options = rivals[0].options.map((o) => JSON.stringify(o));
  if (options.length !== rivals.length || rivals.some((a) => a.options.length !== options.length || a.options.some((o, i) => JSON.stringify(o) !== options[i]))) return;
  const spans = [...(state.optionSpans.get(rivals[0].path) ?? [])].sort((a, b) => a.start - b.start);
  if (spans.length !== options.length || !joinedAsList(state.text, spans)) return;
  const firstValue = spans[0].start;
  const named = rivals.map((a) => {
    const field = fields.find((f) => `/${f.name}` === a.path);
    const head = field?.nameWords.filter((w) => !/^\d+$/.test(w)).at(-1);
    const at = state.words.filter((w) => w.end <= firstValue && head !== undefined && wordMatches(head, stem(w.word)));
    return { field, at: at.length === 1 ? at[0].start : undefined };
  });
  if (named.some((n) => n.field === undefined || n.at === undefined)) return;
  const ordered = [...named].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  ordered.forEach(({ field }, k) => {
    if (field) state.set(field, { value: rivals[0].options[k], span: spans[k] });
  });
  state.fill.ambiguous = [];
}

/**
 * "the GCD of 36 and 48, and of 60 and 96", "sides 3 and 4, 5 and 12": fields that compete for the same
 * values, written in groups of as many values as there are fields, are one call per group, each group's
 * values in the fields' order. A group is joined within by one kind of joint ("and") and set apart from
 * the next by another (", ", ", while Mary chose").
 */
function pairRivalGroups(state: Filling, fields: SchemaField[]): void {
  const at = (path: string) => fields.findIndex((f) => `/${f.name}` === path);
  const rivals = [...state.fill.ambiguous].sort((a, b) => at(a.path) - at(b.path));
  const width = rivals.length;
  if (width < 2 || instructionAimedAtSystem(state.text)) return;
  const options = JSON.stringify(rivals[0].options);
  if (rivals.some((a) => JSON.stringify(a.options) !== options)) return;
  const spans = [...(state.optionSpans.get(rivals[0].path) ?? [])].sort((a, b) => a.start - b.start);
  const count = spans.length / width;
  if (spans.length !== rivals[0].options.length || count < 2 || !Number.isInteger(count)) return;
  const joint = (k: number) =>
    state.text
      .slice(spans[k - 1].end, spans[k].start)
      .trim()
      .toLowerCase();
  const inner = joint(1);
  if (!/^(?:,|and|,\s*and|&)$/.test(inner)) return;
  for (let k = 1; k < spans.length; k++) if ((k % width === 0) === (joint(k) === inner)) return;
  state.fill.each = Array.from({ length: count }, (_, g) => Object.fromEntries(rivals.map((a, i) => [a.path.slice(1), a.options[g * width + i]])));
  state.fill.ambiguous = [];
}

/**
 * Fields that each got a list of values of one length, written as a list ("5, 10 and 15"; never with
 * "or": that is a question), become one call per item, the k-th value of each field in the k-th call.
 * Fields that compete for the same values are not lists: they keep their question.
 */
function spreadLists(state: Filling): void {
  const lists = state.fill.ambiguous;
  if (lists.length === 0 || lists.some((a) => state.optionSpans.get(a.path)?.length !== a.options.length) || instructionAimedAtSystem(state.text)) return;
  const count = lists[0].options.length;
  if (/\brespectively\b/i.test(state.text) && lists.some((a) => a.options.length !== count)) return;
  const spansOf = (path: string) => state.optionSpans.get(path) ?? [];
  const spans = lists.flatMap((a) => spansOf(a.path));
  if (spans.some((s, i) => spans.some((t, j) => i !== j && overlaps(s, t)))) return;
  if (lists.some((a) => !joinedAsList(state.text, spansOf(a.path)) && !/\brespectively\b/i.test(state.text))) return;
  const [from, to] = [Math.min(...spans.map((s) => s.start)), Math.max(...spans.map((s) => s.end))];
  if (/\b(?:or|either|nor|whether|versus|vs)\b/i.test(state.text.slice(from, to).replace(/"[^"]*"|'[^']*'/g, ''))) return;
  // "Lakers and Bulls in 2018 and 2020" is every pair; "… respectively" pairs them in order.
  state.fill.each = /\brespectively\b/i.test(state.text)
    ? Array.from({ length: count }, (_, k) => Object.fromEntries(lists.map((a) => [a.path.slice(1), a.options[k]])))
    : lists.reduce<Record<string, unknown>[]>((calls, a) => calls.flatMap((call) => a.options.map((option) => ({ ...call, [a.path.slice(1)]: option }))), [{}]);
  state.fill.ambiguous = [];
}

/** A value written as a word the description gives a code for ("celsius" where "'c' for Celsius") is that code. */
function toDescribedCodes(state: Filling, fields: SchemaField[]): void {
  for (const field of fields) {
    const value = state.fill.arguments[field.name];
    const code = typeof value === 'string' ? describedCodes(field).get(value.toLowerCase()) : undefined;
    if (code !== undefined) state.fill.arguments[field.name] = code;
  }
}

/**
 * A place read for a field that asks for 'City, State' or 'City, Country' gets its region ("Santa Rosa" → "Santa Rosa, CA"),
 * and so does each of several places listed for it ("Boston and San Francisco": a call each).
 */
function toDescribedPlaceFormat(state: Filling, fields: SchemaField[]): void {
  for (const field of fields) {
    const format = placeFormat(field);
    if (!format) continue;
    const placed = (value: unknown) => (typeof value === 'string' && withRegion(value, format)) || value;
    if (field.name in state.fill.arguments && state.fill.evidence[field.name] !== 'given') state.fill.arguments[field.name] = placed(state.fill.arguments[field.name]);
    for (const listed of state.fill.ambiguous.filter((a) => a.path === `/${field.name}`)) listed.options = listed.options.map(placed);
  }
}

/** Arguments the schema refuses are not kept (the schema is never loosened to fit them). */
function dropInvalid(state: Filling, inputSchema: JsonSchema): void {
  for (const name of refusedArguments(inputSchema, state.fill.arguments)) {
    if (!(name in state.fill.arguments) || (state.context.given && name in state.context.given)) continue;
    delete state.fill.arguments[name];
    delete state.fill.evidence[name];
  }
}

/**
 * A required field without a default that got no value (and is not a question already) is missing,
 * unless its description states the default ("The size of the deck. Default is 52."): then it takes that.
 */
function reportMissing(state: Filling, fields: SchemaField[]): void {
  const ambiguous = new Set(state.fill.ambiguous.map((a) => a.path));
  const listed = new Set(Object.keys(state.fill.each?.[0] ?? {}));
  for (const field of fields) {
    if (field.required && !field.hasDefault && !(field.name in state.fill.arguments) && !listed.has(field.name) && !ambiguous.has(`/${field.name}`)) {
      const stated = statedDefault(field);
      if (stated !== undefined) {
        state.fill.arguments[field.name] = stated;
        state.fill.evidence[field.name] = 'the default its description states';
        state.fill.defaulted = [...(state.fill.defaulted ?? []), field.name];
        continue;
      }
      state.fill.missing.push({ path: `/${field.name}`, description: typeof field.schema.description === 'string' ? field.schema.description : undefined });
    }
  }
}
