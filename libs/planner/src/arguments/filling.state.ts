// The filler's working state for one task, and what every filler shares: candidates, cues and field scores.
import { extractQuoted } from '@toolgate/retrieval';
import type { ArgumentFill, ArgumentFillContext, Span } from './argument-fill.types';
import { type DateMention, extractDates } from './date-time.extractor';
import { extractEmails } from './email.extractor';
import { extractNumbers, type NumberMention } from './number.extractor';
import { extractPaths } from './path.extractor';
import type { Role, SchemaField } from './schema.fields';
import { extractJson } from './structured.extractor';
import { overlaps, stem, type Word, wordMatches, wordsBefore, wordsOf } from './text-span.util';
import { extractTimeZones, type ZoneMention } from './time-zone.extractor';
import { extractUrls } from './url.extractor';

/** A value the text offers for a field, with where it was read and which side of a pair it leans to. */
export interface Candidate {
  value: unknown;
  span: Span;
  hint?: Role;
  /** Extra spans consumed with the value (the zone written with a date). */
  claims?: Span[];
}

const SOURCE_CUES = new Set(['from', 'since', 'starting', 'between', 'of']);
const TARGET_CUES = new Set(['to', 'into', 'in', 'until', 'till', 'as', 'through']);
const STRONG_CUES = new Set(['from', 'since', 'until', 'till', 'into', 'between']);

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Words that point at a count-limiting field without naming it ("the first 20 rows", "top 5"). */
const TRIALS = ['trial', 'trials'];
/** Words (stemmed) that point at a field they do not name: "exactly 5 heads" is the successes, "in 10 tosses" the trials. */
const POINTERS: Record<string, string[]> = {
  first: ['limit', 'max', 'most'],
  top: ['limit', 'max', 'most', 'k'],
  exact: ['success', 'successes'],
  time: TRIALS,
  tosse: TRIALS,
  toss: TRIALS,
  flip: TRIALS,
  roll: TRIALS,
  attempt: TRIALS,
};

/** The filler's working state for one task: what the text offers and what has been used. */
export class Filling {
  readonly words: Word[];
  readonly used: Span[] = [];
  readonly fill: ArgumentFill = { arguments: {}, missing: [], ambiguous: [], evidence: {} };
  /** Spans whose content is data (quoted text, URLs, JSON): never read as numbers, enums or flags. */
  readonly opaque: Span[];
  readonly quoted: ReturnType<typeof extractQuoted>;
  readonly urls;
  readonly emails;
  readonly json;
  readonly paths;
  readonly dates: DateMention[];
  readonly zones: ZoneMention[];
  readonly numbers: NumberMention[];
  /** Local dates written into arguments: their zone goes to the source-zone field. */
  readonly localDates: DateMention[] = [];

  constructor(
    readonly text: string,
    readonly context: ArgumentFillContext,
    readonly takesDates: boolean,
  ) {
    this.words = wordsOf(text);
    this.quoted = extractQuoted(text);
    this.urls = extractUrls(text);
    this.emails = extractEmails(text, this.urls);
    // JSON written inside a quote is part of the quoted text ("mean([2, 4])"); quotes inside JSON are the JSON's.
    this.json = extractJson(text).filter((j) => !this.quoted.some((q) => q.start < j.start && j.end < q.end));
    this.quoted = this.quoted.filter((q) => !this.json.some((j) => overlaps(j, q)));
    const web = [...this.urls, ...this.emails, ...this.json];
    this.opaque = [...web, ...this.quoted];
    // "use the 'predict_house_price' function": the tool's own name in quotes says which tool, it is no value.
    const toolName = context.tool?.name.toLowerCase();
    if (toolName) this.quoted = this.quoted.filter((q) => ![toolName, toolName.split(/[./]/).pop()].includes(q.value.trim().toLowerCase()));
    // A quoted path may hold spaces ("docs/setup guide.md"): the quote is the path.
    const quotedPaths = this.quoted.filter(
      (q) => /[\\/]|^[^\s]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$|\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(q.value) && !this.urls.some((u) => overlaps(u, q)) && !/\s{2,}|[.!?]\s/.test(q.value),
    );
    this.paths = [...quotedPaths.map((q) => ({ start: q.start, end: q.end, text: q.text, value: q.value, folder: q.value.endsWith('/') })), ...extractPaths(text, [...web, ...quotedPaths])].sort(
      (a, b) => a.start - b.start,
    );
    this.dates = extractDates(text, context.referenceTime, context.timeZone, [...web, ...this.paths]);
    this.zones = extractTimeZones(text, context.timeZone).filter((z) => !this.opaque.some((o) => overlaps(o, z)));
    // "seconds in three hours" is a quantity, not a date, for a tool that takes no date.
    this.numbers = extractNumbers(text, [...this.opaque, ...this.paths, ...(takesDates ? [...this.dates, ...this.zones] : [])]);
  }

  isFree(span: Span): boolean {
    return !this.used.some((u) => overlaps(u, span));
  }

  /** The field has neither a value nor a question yet. */
  isOpen(field: SchemaField): boolean {
    return !(field.name in this.fill.arguments) && !this.fill.ambiguous.some((a) => a.path === `/${field.name}`);
  }

  hintOf(span: Span): Role | undefined {
    // "from my home in Boston", "to the office at 456 Park Avenue": the place is where the trip starts or ends.
    const via = /\b(from|to)\s+(?:my|the|our|your|his|her|their|a)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:in|at|on|near)\s+$/i.exec(this.text.slice(Math.max(0, span.start - 48), span.start));
    if (via) return via[1].toLowerCase() === 'from' ? 'source' : 'target';
    const before = wordsBefore(this.words, span.start, 3);
    const [previous, last] = [before.at(-2), before.at(-1)];
    let cue = last === 'the' || last === 'a' || last === 'either' ? previous : last;
    // "until Christmas 2026-12-25": a strong cue still counts a name or two away.
    if (!cue || !(SOURCE_CUES.has(cue) || TARGET_CUES.has(cue) || cue === 'and')) cue = [...before].reverse().find((w) => STRONG_CUES.has(w)) ?? cue;
    if (!cue) return undefined;
    if (SOURCE_CUES.has(cue) && cue !== 'of') return 'source';
    if (cue === 'and' && /\bbetween\b/i.test(this.text.slice(0, span.start))) return 'target';
    if (TARGET_CUES.has(cue)) return 'target';
    return undefined;
  }

  /** Where each value was read, by field name. */
  readonly valueSpans = new Map<string, Span>();

  /** Optional fields the words gave several values, none of which they were given: no other clause's value is theirs either. */
  readonly unsure = new Set<string>();

  set(field: SchemaField, candidate: Candidate): void {
    this.fill.arguments[field.name] = candidate.value;
    this.fill.evidence[field.name] = candidate.span.text;
    this.valueSpans.set(field.name, candidate.span);
    this.used.push(candidate.span, ...(candidate.claims ?? []));
  }

  /** Where each option of an ambiguous field was written, by path: a list ("5, 10 and 15") may become one call per item. */
  readonly optionSpans = new Map<string, Span[]>();

  ambiguous(field: SchemaField, options: unknown[], spans?: Span[]): void {
    this.fill.ambiguous.push({ path: `/${field.name}`, options });
    // A value written twice has a place each ("c = 3 … c = 3"): more places than options.
    if (spans && spans.length >= options.length) this.optionSpans.set(`/${field.name}`, spans);
  }

  /** One value per field, or the pair (source, target) by cue words, then by order of mention. */
  assign(fields: SchemaField[], candidates: Candidate[]): void {
    const free = candidates.filter((c) => this.isFree(c.span)).sort((a, b) => a.span.start - b.span.start);
    // "to EUR and GBP": a value joined to the previous one by "and"/"or" shares its side.
    for (let i = 1; i < free.length; i++) {
      // "USD to AUD and USD to CAD": a value followed by its own "to" opens a new pair as its source.
      if (/^\s*(?:to|into|->|→)\s/i.test(this.text.slice(free[i].span.end))) {
        if (!free[i].hint) free[i] = { ...free[i], hint: 'source' };
        continue;
      }
      if (!free[i].hint && /^\s*(?:,|,?\s*and|,?\s*or|&)\s*$/i.test(this.text.slice(free[i - 1].span.end, free[i].span.start))) free[i] = { ...free[i], hint: free[i - 1].hint };
    }
    if (fields.length === 1 && !fields[0].role) {
      this.single(fields[0], free);
      return;
    }
    const open = [...fields];
    const byRole = (role: Role) => free.filter((c) => c.hint === role);
    const unhinted = free.filter((c) => !c.hint);
    const decided = new Set<SchemaField>();
    for (const field of open) {
      if (!field.role) continue;
      const hinted = distinct(byRole(field.role));
      if (hinted.length === 1) {
        this.set(field, hinted[0]);
        decided.add(field);
      } else if (hinted.length > 1) {
        this.ambiguous(
          field,
          hinted.map((c) => c.value),
          hinted.map((c) => c.span),
        );
        decided.add(field);
      }
    }
    const order = open.filter((f) => !decided.has(f)).sort((a, b) => (a.role === 'target' ? 1 : 0) - (b.role === 'target' ? 1 : 0));
    const rest = distinct(unhinted.filter((c) => this.isFree(c.span)));
    for (const field of order) {
      const next = rest.shift();
      if (next) this.set(field, next);
    }
  }

  single(field: SchemaField, candidates: Candidate[]): void {
    const options = distinct(candidates);
    if (options.length === 1) this.set(field, options[0]);
    else if (options.length > 1)
      this.ambiguous(
        field,
        options.map((c) => c.value),
        options.map((c) => c.span),
      );
  }
}

export function distinct(candidates: Candidate[]): Candidate[] {
  return candidates.filter((c, i) => candidates.findIndex((d) => same(d.value, c.value)) === i);
}

/** A field's name words before its divisor: "compounds_per_year" counts compounds, "10 years" is not its value. */
export function countedNameWords(field: SchemaField): string[] {
  const per = field.nameWords.indexOf('per');
  return per >= 0 ? field.nameWords.slice(0, per) : field.nameWords;
}

/** The noun a field's name counts, its numbering left out: `year` of year2, `night` of num_nights. */
export function countedHead(field: SchemaField): string | undefined {
  return countedNameWords(field)
    .filter((w) => !/^\d+$/.test(w))
    .at(-1);
}

const JOINING = new Set(['and', 'or', 'but', 'while', 'whereas', 'plus', 'with', 'then']);
/** What may stand between a field's name and the value it introduces. */
const LINKING = /^\s*(?:(?:of|is|was|are|were|=|:|as|at|equals?|to be|being)\s*)?(?:(?:the|a|an|about|around|approximately)\s+)?$/i;

/** Field-name words that are prepositions: a value comes after them. */
const CUE_NAMES = new Set(['from', 'to', 'into', 'in', 'on', 'at', 'by', 'for', 'of', 'with', 'via']);

export function fieldScore(state: Filling, field: SchemaField, span: Span): number {
  const near = state.words.filter((w) => (w.end <= span.start + 1 ? span.start - w.end < 30 : w.start >= span.end && w.start - span.end < 30)).filter((w) => !overlaps(w, span));
  // A comma or full stop ends the clause: "first name 'Maya', last name 'Chen'".
  const sameClause = (w: Word) => !/[,;.!?]/.test(w.end <= span.start ? state.text.slice(w.end, span.start) : state.text.slice(span.end, w.start));
  const before = near.filter((w) => w.end <= span.start && sameClause(w)).slice(-3);
  // "mean 0 and standard deviation 1": words that introduce the next number are that number's.
  const next = state.numbers.find((n) => n.start >= span.end);
  const following = near.filter((w) => w.start >= span.end && sameClause(w) && !(next && w.end <= next.start && LINKING.test(state.text.slice(w.end, next.start))));
  // "1 atm and a gauge pressure of 2": what follows a conjunction is about the next item.
  const joint = following.findIndex((w) => JOINING.has(w.word));
  const after = (joint >= 0 ? following.slice(0, joint) : following).slice(0, 3);
  const counted = countedNameWords(field);
  const divisor = field.nameWords.slice(counted.length + 1);
  // year1, year2: the digit tells the fields apart, it is no word of the text ("$2M" says nothing of year2).
  const named = counted.filter((w) => !/^\d+$/.test(w));
  let score = 0;
  for (const w of [...before, ...after]) {
    const word = stem(w.word);
    // "$1000 per year" is a payment_per_year; "10 years" is not.
    if (divisor.some((d) => wordMatches(d, word)) && state.words[state.words.indexOf(w) - 1]?.word === 'per') score += 2;
    // The word right against the value says the most: "500 for 8 years" gives years the 8.
    const adjacent = w === before.at(-1) || w === after[0] ? 0.5 : 0;
    // "a height of 15", "radius = 3", "age: 40": the name that introduces the value, over one that follows it.
    const introduces = w.end <= span.start && LINKING.test(state.text.slice(w.end, span.start)) ? 1 : 0;
    // A pointer word points only from right against the value ("exactly 5", "10 tosses", "top 3").
    const name = named.find((n) => wordMatches(n, word) || (adjacent > 0 && POINTERS[word]?.includes(n)));
    // `from_lang`, `to`: a preposition of the name points at what follows it, never at what it follows ("'Hi' from English").
    if (name !== undefined && CUE_NAMES.has(name) && w.start >= span.end) continue;
    if (name !== undefined) score += (field.sharedNameWords.includes(name) ? 1 : 2) + Math.max(adjacent, introduces);
    else if (field.descriptionWords.some((d) => wordMatches(d, word))) score += 1;
  }
  return score;
}

// "or" joins alternatives: they share a score (so one field with both asks), never a spread (see spreadLists).
// "… for Boston and also for Chicago": "also" after the joint still lists.
const LIST_JOINT = /^\s*(?:,\s*and|,\s*or|,\s*as well as|,|;|&|and|or|as well as|plus)?(?:\s*\balso\b)?\s*/i;

/** "5, 10 and 15", "of 5, the factorial of 7, and the factorial of 9": items joined as a list, or each after the words the first one had. */
export function joinedAsList(text: string, spans: Span[]): boolean {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  return sorted.every((span, i) => {
    if (i === 0) return true;
    const gap = text.slice(sorted[i - 1].end, span.start);
    if (!LIST_JOINT.exec(gap)?.[0].trim()) return false;
    const rest = gap.replace(LIST_JOINT, '').trim().toLowerCase();
    return rest === '' || text.slice(0, sorted[0].start).trimEnd().toLowerCase().endsWith(rest);
  });
}

/**
 * The items of a list count as much as its best-pointed one ("the factorial of 5, 10 and 15", "for
 * 10, 20 and 30 years"), for the one field that wants an item of it most.
 */
export function shareListScores<T extends { field: SchemaField; score: number }>(text: string, pairs: T[], spanOf: (pair: T) => Span): void {
  const spans = [...new Set(pairs.map(spanOf))].sort((a, b) => a.start - b.start || a.end - b.end);
  const groups: Span[][] = [];
  for (const span of spans) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    // The same words read twice ("Proton" as a name and as an example the description gives) are one item.
    const again = group?.some((g) => g.start === span.start && g.end === span.end);
    if (group && last && (again || (last.end <= span.start && joinedAsList(text, [last, span])))) group.push(span);
    else groups.push([span]);
  }
  for (const group of groups.filter((g) => g.length > 1)) {
    const members = pairs.filter((p) => group.includes(spanOf(p)));
    const best = Math.max(...members.map((p) => p.score));
    // The field that wants the list most takes it whole; when two want it as much, neither does.
    const leaders = new Set(members.filter((p) => p.score === best && best > 0).map((p) => p.field));
    if (leaders.size !== 1) continue;
    for (const pair of members) if (leaders.has(pair.field)) pair.score = best;
  }
}
