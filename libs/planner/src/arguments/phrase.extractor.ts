import type { Span } from './argument-fill.types';
import { overlaps } from './text-span.util';

/** A stretch of words a short text field may take: a proper name, or one word of the text. */
export interface Phrase extends Span {
  value: string;
  /** Written with capitals (a name: "Los Angeles", "LA Lakers", "Windows 10", "C4"). */
  proper: boolean;
  /** The lowercase word right before it ("in", "from", "by"). */
  before?: string;
  /** For "City, Region": which part this is; "whole" is both with the comma. */
  part?: 'head' | 'tail' | 'whole';
}

export interface Token extends Span {
  value: string;
  proper: boolean;
  /** First word of a sentence: capitalised by position, not by being a name. */
  initial: boolean;
}

// Words that are capitalised at the start of a request without being names.
const COMMON = new Set(
  `what who whom whose when where why how which is are was were do does did can could would will should shall may might must
  please i i'm i'd i've my me we our us you your he she they them their it its the a an this that these those there here
  give get find show tell list let in on at for from to with by of and or if after before then also hey hi hello now
  calculate compute determine search look fetch retrieve provide generate create make convert check identify predict
  estimate analyze analyse plan order send book buy sell play suggest recommend help need want am using use change update set
  first firstly second secondly third thirdly fourth fifth next lastly finally additionally moreover furthermore however besides`.split(/\s+/),
);

const NAME_PARTICLES = new Set(['de', 'del', 'della', 'der', 'den', 'van', 'von', 'da', 'di', 'du', 'dos', 'das', 'la', 'le', 'bin', 'ibn', 'al', 'el']);
const ABBREVIATION = /^(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Ft|Inc|Ltd|Co|Corp|Jr|Sr|Bros)$/;
// "C#", "F#": a capital with a sharp is one name (a key, a language).
// Letters of any script: "Käärijä", "José", "Divinópolis" are one word each.
const TOKEN = /[A-Z]#(?![\w#])|[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.&-]*[\p{L}\p{M}\p{N}]|[\p{L}\p{N}]/gu;

function isProperWord(word: string): boolean {
  return /^\p{Lu}/u.test(word) || /^\p{Ll}+\p{Lu}/u.test(word);
}

export function tokensOf(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((m) => {
    // "Brady's record": the possessive is not part of the name; with no noun after it ("order from McDonald's.") it is.
    const after = text.slice(m.index + m[0].length);
    let value = /^\s*(?:$|[,.;:!?)]|(?:on|in|at|from|for|to|with|and|or|near|by)\b)/i.test(after) ? m[0] : m[0].replace(/['’]s$/, '');
    // "Mr. X", "Apple Inc.", "Washington D.C.": the abbreviation keeps its period.
    if (text.charAt(m.index + value.length) === '.' && (ABBREVIATION.test(value) || /^[A-Z](?:\.[A-Z])+$/.test(value))) value += '.';
    const before = text.slice(0, m.index).trimEnd();
    // A request wrapped in quotes or brackets starts after them: '"Can you …' opens with "Can".
    const initial = /^["'“‘([]*$/.test(before) || /[.!?:;]["')\]]?$/.test(before);
    // "I", "I'm", "I'd": the speaker, capitalised anywhere.
    const proper = !/^I(?:['’](?:m|d|ve|ll))?$/.test(value) && isProperWord(value) && !(initial && COMMON.has(value.toLowerCase()));
    return { start: m.index, end: m.index + value.length, text: value, value, proper, initial };
  });
}

/**
 * Proper names written in the text, each with the word before it: runs of capitalised words, a short
 * number or code after one ("Windows 10"), and "City, Region" as both parts and the whole.
 */
export function extractProperPhrases(text: string, tokens: Token[], blocked: Span[]): Phrase[] {
  const free = (t: Token) => !blocked.some((b) => overlaps(b, t));
  const runs: Token[][] = [];
  let run: Token[] = [];
  const close = () => {
    if (run.length > 0) runs.push(run);
    run = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const joined = run.length > 0 && /^[ \t]+$/.test(text.slice(run[run.length - 1].end, token.start));
    if (!joined) close();
    const shortNumber = /^\d{1,3}$/.test(token.value) && run.length > 0;
    // "Find me": a capitalised first word followed by a lowercase one is not a name.
    // "Provo, UT" opening a clause is a place with its region all the same.
    const lone = token.initial && token.proper && !(tokens[i + 1]?.proper && /^(?:[ \t]+|,[ \t]*)$/.test(text.slice(token.end, tokens[i + 1].start)));
    // "Guillermo del Toro", "Ludwig van Beethoven": a lowercase particle between capitalised words is part of the name.
    const particle = run.length > 0 && NAME_PARTICLES.has(token.value) && tokens[i + 1]?.proper && /^[ \t]+$/.test(text.slice(token.end, tokens[i + 1].start));
    if (free(token) && ((token.proper && !lone) || shortNumber || particle)) run.push(token);
    else close();
  }
  close();
  const phrases: Phrase[] = runs.map((r) => phraseOf(text, tokens, r[0], r[r.length - 1]));
  // "Miami, Florida": the city, the region and both.
  for (let i = 0; i + 1 < runs.length; i++) {
    const [head, tail] = [phrases[i], phrases[i + 1]];
    if (!/^,\s*$/.test(text.slice(head.end, tail.start))) continue;
    // "Lisbon, Porto and Faro" is a list of names, not a city and its region.
    const listGoesOn =
      (i + 2 < runs.length && /^\s*(?:,|,?\s*(?:and|or)\b|&)\s*$/i.test(text.slice(tail.end, phrases[i + 2].start))) || (i > 0 && /^\s*,\s*$/.test(text.slice(phrases[i - 1].end, head.start)));
    // "Boston, MA, and Washington": a region written as its code ("MA", "D.C.") still closes its place.
    const regionCode = /^(?:[A-Z]{2}|[A-Z]\.[A-Z]\.)$/.test(tail.value);
    if (listGoesOn && !regionCode) continue;
    head.part = 'head';
    tail.part = 'tail';
    phrases.push({ ...head, end: tail.end, text: text.slice(head.start, tail.end), value: text.slice(head.start, tail.end), part: 'whole' });
  }
  // "Metropolitan Museum of Art": two names joined by "of" are also one name (and stay two: "King of France").
  for (let i = 0; i + 1 < runs.length; i++) {
    const [left, right] = [runs[i][runs[i].length - 1], runs[i + 1][0]];
    if (/^ of (?:the )?$/.test(text.slice(left.end, right.start))) phrases.push({ ...phraseOf(text, tokens, runs[i][0], runs[i + 1][runs[i + 1].length - 1]), part: undefined });
  }
  return phrases;
}

export const isCommonWord = (word: string) => COMMON.has(word.toLowerCase());

export function phraseOf(text: string, tokens: Token[], first: Token, last: Token): Phrase {
  const index = tokens.indexOf(first);
  const previous = index > 0 ? tokens[index - 1] : undefined;
  const value = text.slice(first.start, last.end);
  return {
    start: first.start,
    end: last.end,
    text: value,
    value,
    proper: first.proper,
    before: previous && /^\s*$/.test(text.slice(previous.end, first.start)) ? previous.value.toLowerCase() : undefined,
  };
}
