import { instructionAimedAtSystem } from '../deterministic/instruction.detector';
import type { ArgumentFill, Span } from './argument-fill.types';
import { cutBetween } from './clause.spreader';
import { type Filling, joinedAsList } from './filling.state';
import { extractProperPhrases, type Phrase, tokensOf } from './phrase.extractor';
import { tripEnds } from './phrase.filler';
import type { SchemaField } from './schema.fields';
import { overlaps } from './text-span.util';

/** A place one leg starts or ends at, and where its words begin ("from my home in Oslo" begins at "from"). */
interface Stop {
  side: 'source' | 'target';
  value: string;
  span: Span;
  cue: number;
}

/** "my home", "her friend's house", "the office": a place the writer names by what it is to them. */
const OWN_PLACE = /\b(?:my|our|your|his|her|their|the)\s+((?:[a-z]+['’]s\s+)?(?:home|house|office|hotel|work|workplace|school|apartment|flat|place|campus))\b/gi;
const SIDE_CUE = /\b(?:(from)|(to|back to|return to|reach|arrive at))\s+$/i;

/**
 * A trip of several legs ("from A to B, then from B to C, and finally back to A") for a tool that takes one
 * start and one end place is one call per leg. A leg that names only where it goes starts where the leg
 * before it ended, and a place named by what it is to the writer ("my office") is the place written with
 * it first ("my office in Palo Alto"). The words of each leg fill its other fields; a field a leg does
 * not speak to takes the nearest leg's value. Undefined unless there are two legs or more, each with both
 * ends, and every call then has its required arguments.
 */
export function spreadLegs(whole: Filling, fields: SchemaField[], fillClause: (clause: string) => Filling): ArgumentFill | undefined {
  const ends = tripEnds(fields);
  if (!ends || instructionAimedAtSystem(whole.text)) return undefined;
  const stops = stopsOf(whole);
  const legs: { source?: Stop; target?: Stop; start: number }[] = [];
  for (const stop of stops) {
    const leg = legs.at(-1);
    // A leg is "from A to B", or "to B from A" with the start written right after the end ("return to Oslo from Rome").
    const completes = stop.side === 'target' ? leg?.source && !leg.target : leg?.target && !leg.source && /^\s*,?\s*$/.test(whole.text.slice(leg.target.span.end, stop.cue));
    if (leg && completes) leg[stop.side] = stop;
    else legs.push({ [stop.side]: stop, start: stop.cue });
  }
  if (legs.length < 2 || !legs[0].source) return undefined;
  for (const [k, leg] of legs.entries()) {
    const before = legs[k - 1];
    if (leg.source || !before?.target || !leg.target) continue;
    // "from Boston to Denver and Austin" is two trips from Boston; "…, then to Austin" goes on from Denver.
    leg.source = joinedAsList(whole.text, [before.target.span, leg.target.span]) ? before.source : before.target;
  }
  if (legs.some((leg) => !leg.source || !leg.target || leg.source.value === leg.target.value)) return undefined;
  // A leg's words start at the strongest cut after the leg before it ("…Palo Alto and then | a scenic route from Palo Alto").
  const lastEnd = (leg: (typeof legs)[number]) => Math.max(leg.source?.span.end ?? 0, leg.target?.span.end ?? 0);
  const starts = legs.map((leg, k) => (k === 0 ? 0 : (cutBetween(whole.text, lastEnd(legs[k - 1]), leg.start)?.next ?? leg.start)));
  const ranges = starts.map((start, k) => ({ start, end: k + 1 < starts.length ? starts[k + 1] : whole.text.length }));
  const own = ranges.map((range) => fillClause(whole.text.slice(range.start, range.end)));
  const others = fields.filter((f) => f !== ends.source && f !== ends.target);
  if (own.some((fill) => fill.fill.ambiguous.length > 0 || (fill.fill.each?.length ?? 0) > 0)) return undefined;
  const calls = legs.map((leg, k) => {
    const args: Record<string, unknown> = {};
    const nearest = [...own.keys()].sort((a, b) => Math.abs(a - k) - Math.abs(b - k) || a - b);
    for (const field of others) {
      const from = nearest.find((j) => own[j].fill.arguments[field.name] !== undefined);
      if (from !== undefined) args[field.name] = own[from].fill.arguments[field.name];
      else if (whole.fill.arguments[field.name] !== undefined) args[field.name] = whole.fill.arguments[field.name];
    }
    args[ends.source.name] = leg.source?.value;
    args[ends.target.name] = leg.target?.value;
    return args;
  });
  if (calls.some((args) => fields.some((f) => f.required && !f.hasDefault && args[f.name] === undefined))) return undefined;
  const common = Object.fromEntries(Object.entries(calls[0]).filter(([name, value]) => calls.every((c) => JSON.stringify(c[name]) === JSON.stringify(value))));
  return { arguments: common, each: calls, missing: [], ambiguous: [], evidence: whole.fill.evidence };
}

/** The places the text starts or ends a leg at, in the order written. */
function stopsOf(state: Filling): Stop[] {
  const text = state.text;
  const tokens = tokensOf(text);
  const phrases = extractProperPhrases(text, tokens, [...state.dates, ...state.paths]);
  // "San Francisco, California" is one place: its parts are not stops of their own.
  const places = phrases.filter((p) => p.part === 'whole' || !phrases.some((q) => q !== p && q.part === 'whole' && overlaps(q, p)));
  const stops: Stop[] = [];
  const named = new Map<string, Phrase>();
  for (const m of text.matchAll(OWN_PLACE)) {
    const after = m.index + m[0].length;
    const place = places.find((p) => /^\s+(?:in|at|on|near)\s+(?:the\s+)?$/i.test(text.slice(after, p.start)));
    const key = m[1].toLowerCase().replace(/\s+/g, ' ');
    // "my home in San Francisco" says which place "my home" is; a later "back to my home" is that place.
    if (place) named.set(key, place);
    else {
      const side = SIDE_CUE.exec(text.slice(Math.max(0, m.index - 16), m.index));
      const bound = named.get(key);
      if (side && bound) stops.push({ side: side[1] ? 'source' : 'target', value: bound.value, span: { start: m.index, end: after, text: m[0] }, cue: m.index - side[0].length });
    }
  }
  for (const place of places) {
    // "the Golden Gate Bridge in San Francisco": a place written right after another says where that one is.
    if (places.some((p) => p.end <= place.start && /^\s+(?:in|at|on|near)\s+(?:the\s+)?$/i.test(text.slice(p.end, place.start)))) continue;
    const side = state.hintOf(place);
    if (side !== 'source' && side !== 'target') continue;
    const cue = /\b(?:from|to|back to|return to|reach|arrive at)\s+(?:(?:my|our|your|his|her|their|the|a)\s+)?(?:[a-z]+['’]s\s+)?(?:[a-z]+\s+){0,2}(?:(?:in|at|on|near)\s+)?(?:the\s+)?$/i.exec(
      text.slice(Math.max(0, place.start - 48), place.start),
    );
    stops.push({ side, value: place.value, span: place, cue: cue ? place.start - cue[0].length : place.start });
  }
  return stops.sort((a, b) => a.span.start - b.span.start);
}
