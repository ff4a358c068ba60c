import { familyOfName } from '../arguments/schema.fields';
import { contentWords, nameWords, stem } from '../arguments/text-span.util';

/** Words that send a request back to what was said before: "for the same duration", "and its debt ratio too", "the offenses he committed". */
const BACK_REFERENCE = /\b(?:same|it|its|them|their|there|that one|these|those|as well|too|he|she|him|her|his|hers)\b/i;
/** "the object", "this car": a definite noun phrase, which refers back when an earlier part spoke of the same noun. */
const DEFINITE = /\b(?:the|this|that)\s+(\p{L}+)\b/giu;

/** True when the words refer back to what was said before them. */
function refersBack(subGoal: string, before: string): boolean {
  if (BACK_REFERENCE.test(subGoal)) return true;
  const said = new Set(contentWords(before));
  return [...subGoal.matchAll(DEFINITE)].some((m) => contentWords(m[1]).some((word) => said.has(word)));
}
/** Name words that say what kind of value a field holds, not what it is about. */
const GENERIC = new Set(['name', 'id', 'value', 'type', 'the', 'of', 'number', 'num', 'input', 'param']);

const about = (field: string) =>
  nameWords(field)
    .map(stem)
    .filter((w) => !GENERIC.has(w) && !/^\d+$/.test(w));

export interface CarryOptions {
  /** The text of the earlier steps: a definite noun phrase refers back to a noun said there ("a moving object" … "the object"). */
  before?: string;
  /** The field takes a list: an earlier step's list value is carried whole. */
  list?: boolean;
  /**
   * The later step's words say nothing for the field: a field of the very same name, about something
   * specific, is carried even without words that refer back ("the area under f(x)=x^2 from 1 to 5. And
   * find the derivative at x=3": the same function), because a request leaves unsaid what it just said.
   */
  unsaid?: boolean;
}

/**
 * The values an earlier step was given for the same thing a later step lacks, when the later step's
 * words refer back ("the interest coverage ratio for the same duration" after "the sales growth of XYZ
 * for 3 years": company_name ← company, years ← years). `earlier` holds each earlier step's calls (one
 * per item of a list): a step run for 1900 and 1950 gives "these years" both. Nearest step first; empty
 * when the words do not refer back or no earlier field is about the same thing.
 */
export function carriedOver(subGoal: string, field: string, earlier: Record<string, unknown>[][], options: CarryOptions = {}): unknown[] {
  const wanted = about(field);
  const referred = refersBack(subGoal, options.before ?? '');
  // Unreferred, only the very same specific field is the same thing: `type` of a flight is not `type` of a restaurant.
  if (!referred && !(options.unsaid && wanted.length > 0)) return [];
  // A field named only by generic words (`name`, `id`) is the same thing only under the same name.
  const same = (name: string) => {
    if (!referred || wanted.length === 0) return name === field;
    const words = about(name);
    return words.length > 0 && words.every((w) => wanted.includes(w)) && wanted.every((w) => words.includes(w));
  };
  for (const calls of [...earlier].reverse()) {
    const name = Object.keys(calls[0] ?? {}).find(same);
    if (name === undefined) continue;
    const values = calls.map((args) => args[name]);
    // Only a list field takes a list; an object is never carried (it was built for its own tool).
    if (values.some((v) => v === undefined || (typeof v === 'object' && v !== null && !(options.list && Array.isArray(v))))) continue;
    return values.filter((v, i) => values.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
  }
  return [];
}

/** Words that speak of several things said before as a group: "between the two cities", "both", "compare them". */
const GROUP_REFERENCE = /\b(?:both|two|three|these|those|them|they|each other)\b/i;

/** The numbered families among `fields` (city_1 and city_2; species_a and species_b), each in written order. */
export function fieldFamilies(fields: string[]): string[][] {
  const families = new Map<string, string[]>();
  for (const field of fields) {
    const family = familyOfName(field);
    if (family !== field) families.set(family, [...(families.get(family) ?? []), field]);
  }
  return [...families.values()].filter((members) => members.length > 1);
}

/**
 * The values an earlier step was run for, one per member of a field family, when the words speak of them
 * as a group: "the current time in Beijing and Tokyo … the time difference between the two cities" gives
 * city_1 Beijing and city_2 Tokyo. The nearest earlier step run exactly once per member, on the field that
 * tells its runs apart (the one about the same thing, else the only one); undefined otherwise.
 */
export function groupCarriedOver(subGoal: string, family: string[], earlier: Record<string, unknown>[][]): Record<string, unknown> | undefined {
  if (!GROUP_REFERENCE.test(subGoal)) return undefined;
  const wanted = about(familyOfName(family[0]));
  for (const calls of [...earlier].reverse()) {
    if (calls.length !== family.length) continue;
    const varying = Object.keys(calls[0]).filter((name) => {
      const values = calls.map((args) => args[name]);
      return values.every((v) => typeof v === 'string' || typeof v === 'number') && new Set(values).size === values.length;
    });
    const same = varying.filter((name) => about(name).some((w) => wanted.includes(w)));
    const field = same.length === 1 ? same[0] : varying.length === 1 ? varying[0] : undefined;
    if (field) return Object.fromEntries(family.map((member, i) => [member, calls[i][field]]));
  }
  return undefined;
}
