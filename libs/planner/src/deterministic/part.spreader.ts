import type { FilledArguments } from './argument-filler.types';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The calls one part's fill asks for: one per listed item, else one. */
const callsOf = (fill: FilledArguments): Record<string, unknown>[] => (fill.each && fill.each.length > 0 ? fill.each.map((item) => ({ ...fill.arguments, ...item })) : [fill.arguments]);

/**
 * A part's fill; `repeats: false` marks a part that may complete the call before it but never start one,
 * `asksTheSame` one that asks what was asked before for another value ("the same for Ecuador").
 */
export type PartFill = FilledArguments & { repeats?: boolean; asksTheSame?: boolean };

/** What a part says for sure: its values less the ones guessed from left-over words or taken from a stated default. */
const sureOf = (fill: FilledArguments): Record<string, unknown> => {
  const guessed = new Set([...(fill.guessed ?? []), ...(fill.defaulted ?? [])]);
  return Object.fromEntries(Object.entries(callsOf(fill)[0]).filter(([name]) => !guessed.has(name)));
};
/** What a part guessed from its own left-over words ("water", "Aluminium", "took place"). */
const guessOf = (fill: FilledArguments): Record<string, unknown> => {
  const guessed = new Set(fill.guessed ?? []);
  return Object.fromEntries(Object.entries(callsOf(fill)[0]).filter(([name]) => guessed.has(name)));
};
/** A name guessed for a field the call before guessed otherwise: a guess written as a name ("Aluminium"; not "took place") is a value of its own. */
const guessesAnotherName = (before: Record<string, unknown>, guess: Record<string, unknown>) =>
  Object.entries(guess).some(([name, value]) => name in before && !same(before[name], value) && typeof value === 'string' && /^\p{Lu}/u.test(value));
const conflicts = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).some((name) => name in b && !same(a[name], b[name]));

/**
 * Sub-goals that chose the same tool ("cases filed in 2019 against Dara Inc. Also list the cases filed in
 * 2018 against the same company") are one call while they add to each other, and a new call starts at
 * a part that gives a field another value than the call before it says for sure. Each call takes what
 * it does not say from the nearest call that says it ("the same company" → Dara Inc); a value guessed
 * from left-over words counts only where no call says the field. Undefined (fill the parts as one text)
 * when no part starts a call, a part is unsure of a required field, or a call would still lack a
 * required field or repeat another.
 */
export function spreadParts(fills: PartFill[], required: string[]): FilledArguments | undefined {
  if (fills.length < 2 || fills.some((f) => (f.ambiguous ?? []).some((a) => required.includes(a.path.slice(1))))) return undefined;
  const groups: { sure: Record<string, unknown>; guess: Record<string, unknown>; fills: PartFill[] }[] = [];
  for (const fill of fills) {
    const sure = sureOf(fill);
    const guess = guessOf(fill);
    const current = groups.at(-1);
    // A part that guesses a name of its own for a field the call before it guessed otherwise is a call of its own ("… of water …, and … the same mass of Aluminium").
    if (current && (!(conflicts(current.sure, sure) || guessesAnotherName(current.guess, guess)) || fill.repeats === false)) {
      // A part that may only add to the call before it keeps none of the values it disagrees on.
      for (const [name, value] of Object.entries(sure)) if (!(name in current.sure)) current.sure[name] = value;
      for (const [name, value] of Object.entries(guess)) if (!(name in current.guess)) current.guess[name] = value;
      current.fills.push(fill);
    } else groups.push({ sure: { ...sure }, guess: { ...guess }, fills: [fill] });
  }
  if (groups.length < 2) return undefined;
  const calls = groups.flatMap((group, k) => {
    const nearest = [...groups.keys()].filter((j) => j !== k).sort((a, b) => Math.abs(a - k) - Math.abs(b - k) || a - b);
    const args: Record<string, unknown> = { ...group.sure };
    // What a call leaves unsaid comes from the nearest call that says it: the fields every call needs, and the
    // others only when it asks the same again ("the same for Ecuador"); "for the Lakers" of another player's call stays there.
    const refers = group.fills.some((fill) => fill.asksTheSame);
    for (const j of nearest) for (const [name, value] of Object.entries(groups[j].sure)) if (!(name in args) && (refers || required.includes(name))) args[name] = value;
    for (const fill of group.fills) for (const [name, value] of Object.entries(callsOf(fill)[0])) if (!(name in args)) args[name] = value;
    // A part's own list ("in 2019 and 2020") is one call per item within its call.
    const listed = group.fills.find((fill) => (fill.each?.length ?? 0) > 1);
    return listed ? (listed.each ?? []).map((item) => ({ ...args, ...item })) : [args];
  });
  if (calls.some((call) => required.some((name) => call[name] === undefined))) return undefined;
  if (calls.some((call, i) => calls.some((other, j) => j > i && same(call, other)))) return undefined;
  const common = Object.fromEntries(Object.entries(calls[0]).filter(([name, value]) => calls.every((call) => same(call[name], value))));
  const sureEverywhere = new Set(groups.flatMap((g) => Object.keys(g.sure)));
  const guessed = [...new Set(fills.flatMap((f) => f.guessed ?? []))].filter((name) => !sureEverywhere.has(name));
  return { arguments: common, each: calls, missing: [], ambiguous: [], ...(guessed.length > 0 ? { guessed } : {}) };
}
