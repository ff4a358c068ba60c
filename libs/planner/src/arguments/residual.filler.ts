// The last resort for a required free-text field (or a numbered family of them): the words of the
// request that neither say what the tool is ("boiling point", "melting point" for a boiling-point
// tool) nor went to another field are what the caller supplied ("water").
import type { Span } from './argument-fill.types';
import type { Filling } from './filling.state';
import { isCommonWord, phraseOf, type Token, tokensOf } from './phrase.extractor';
import { entityOf } from './phrase.filler';
import { fieldFamily, holdsIdentifier, type SchemaField } from './schema.fields';
import { contentWords, nameWords, overlaps, stem, wordMatches } from './text-span.util';
import { unitAt } from './unit.lexicon';

/** Words that carry no value of their own in a request: function words, request verbs and fillers. */
const NOT_VALUES = new Set(
  `about above across after against along among around as at before behind below beneath beside between beyond but by concerning despite down during
  except for from in inside into like near of off on onto out outside over past per since through throughout till to toward towards under until up upon
  via with within without and or nor so yet both either neither whether not no than then also just only even very really too quite rather
  one two three four five six seven eight nine ten twelve twenty first second third last next latest current recent new old other another
  all any each every some many much more most few several such same own
  is are was were be been being am has have had do does did will would shall should can could may might must
  get gets got give gives find finds show shows tell tells list lists let know knows see look looking search searching want wanted need needed require requires required
  found located based given using used made called named known related associated regarding involving including
  name names detail details detailed information info data result results value values something anything thing things way ways kind type
  function functions tool tools method methods api apis endpoint endpoints parameter parameters argument arguments
  i me my mine we us our ours you your yours he him his she her hers they them their theirs it its this that these those there here
  please thanks thank right now today tonight yesterday tomorrow morning afternoon evening night weekend currently exactly approximately
  best worst top largest smallest biggest highest lowest greatest fastest longest shortest oldest newest cheapest nearest closest`.split(/\s+/),
);
/** A word right after a subject ("who won", "I save") or right before an article ("won the") is a verb, not a value. */
const SUBJECTS = new Set(['who', 'i', 'we', 'you', 'they', 'he', 'she', 'it', 'which', 'that']);
const ARTICLES = new Set(['the', 'a', 'an', 'my', 'his', 'her', 'their', 'our', 'your', 'its', 'this', 'that', 'these', 'those']);

/** The last name word of a field for a calendar value: written as dates and numbers, which other readers take. */
const CALENDAR_FIELD = /^(?:month|day|weekday|year|season|date|time|hour|minute)$/;

/** Prepositions that put a name where something is. */
const PLACE_PREPOSITIONS = new Set(['in', 'at', 'near', 'around', 'inside']);

/** Longer leftover runs are a clause, not a value. */
const MAX_RUN_WORDS = 4;

export interface ResidualTool {
  name: string;
  description?: string;
}

/**
 * Fills the one required text field still open with the request's leftover words, when they form one
 * run ("water"), or when of several runs exactly one is a name ("Bitcoin"); a numbered family
 * (species1, species2) takes as many runs in written order ("a human and a chimp"). Returns the fields
 * it filled: a guess the plan's confidence must show (see `ArgumentFill.guessed`).
 */
export function fillResidual(state: Filling, fields: SchemaField[], all: SchemaField[], tool: ResidualTool): SchemaField[] {
  const asked = new Set(state.fill.ambiguous.map((a) => a.path.slice(1)));
  // A guess from left-over words is a name or a thing, never an identifier ("case_id: impactful") or a calendar
  // value ("month: visit", "season: assist"): those are written as codes, numbers and dates, which other readers take.
  const open = fields.filter((f) => f.required && !f.hasDefault && !(f.name in state.fill.arguments) && !asked.has(f.name) && !holdsIdentifier(f) && !CALENDAR_FIELD.test(f.nameWords.at(-1) ?? ''));
  // One field, or a numbered family of them (species1, species2) that takes the runs in written order.
  const numbered = open.length > 1 && open.every((f) => fieldFamily(f) !== f.name && fieldFamily(f) === fieldFamily(open[0]));
  if (open.length !== 1 && !numbered) return [];
  const known = [...nameWords(tool.name).map(stem), ...contentWords(tool.description), ...all.flatMap((f) => [...f.nameWords, ...f.descriptionWords])];
  // The values another field is unsure between ("Bangladesh and India" for country) are that field's, not left over.
  const blocked: Span[] = [...state.used, ...[...state.optionSpans.values()].flat(), ...state.opaque, ...state.dates, ...state.paths, ...state.numbers, ...state.urls, ...state.emails];
  const tokens = tokensOf(state.text);
  const verbal = (i: number) => SUBJECTS.has(tokens[i - 1]?.value.toLowerCase() ?? '') || ARTICLES.has(tokens[i + 1]?.value.toLowerCase() ?? '');
  const leftover = (t: Token, i: number) =>
    !blocked.some((b) => overlaps(b, t)) &&
    /^[A-Za-z][A-Za-z]/.test(t.value) &&
    !NOT_VALUES.has(t.value.toLowerCase()) &&
    !isCommonWord(t.value) &&
    unitAt(t.value, 0)?.text !== t.value &&
    !verbal(i) &&
    !known.some((k) => wordMatches(k, stem(t.value)));
  const runs: Token[][] = [];
  for (const [i, token] of tokens.entries()) {
    const run = runs.at(-1);
    const previous = tokens[i - 1];
    const joined = run !== undefined && run.at(-1) === previous && /^[ \t-]+$/.test(state.text.slice(previous.end, token.start));
    // "World War 2": a short number right after a name, that no field took, is part of it.
    const numbered = joined && previous.proper && /^\d{1,3}$/.test(token.value) && !state.used.some((u) => overlaps(u, token));
    if (!numbered && !leftover(token, i)) continue;
    if (joined) run.push(token);
    else runs.push([token]);
  }
  // "World War 2 in Europe": of several names, for a field that is no place, one after "in", "at" or "near" is where, not what.
  const where = (run: Token[]) => PLACE_PREPOSITIONS.has(tokens[tokens.indexOf(run[0]) - 1]?.value.toLowerCase() ?? '');
  let names = runs.filter((r) => r.some((t) => t.proper));
  if (open.every((f) => entityOf(f) !== 'place') && names.some((r) => !where(r))) names = names.filter((r) => !where(r));
  const chosen = runs.length === open.length ? runs : names.length === open.length ? names : enumerated(state.text, runs, open.length);
  if (!chosen || chosen.some((run) => run.length > MAX_RUN_WORDS)) return [];
  open.forEach((field, i) => {
    const phrase = phraseOf(state.text, tokens, chosen[i][0], chosen[i][chosen[i].length - 1]);
    state.set(field, { value: phrase.value, span: phrase });
  });
  return open;
}

/**
 * "bovine insulin, porcine insulin and human insulin" for one field: the runs are one enumeration, whose
 * first item fills the field and whose items `widenEnumerations` turns into one call each.
 */
function enumerated(text: string, runs: Token[][], wanted: number): Token[][] | undefined {
  if (wanted !== 1 || runs.length < 2) return undefined;
  const gaps = runs.slice(1).map((run, k) => text.slice(runs[k][runs[k].length - 1].end, run[0].start));
  const last = gaps[gaps.length - 1];
  return gaps.every((gap) => /^\s*(?:,\s*(?:and\s+)?|and\s+)$/i.test(gap)) && /\band\b/i.test(last) ? [runs[0]] : undefined;
}
