// Short free-text fields (a city, a team, a person, a title, a kind of thing) from the phrase their name
// and description point to: a name after the right preposition, the word the field's own noun
// qualifies ("theft crimes", "the note C4"), or one of the examples the description gives.
import type { Span } from './argument-fill.types';
import { type Filling, fieldScore, joinedAsList, shareListScores } from './filling.state';
import { extractProperPhrases, isCommonWord, type Phrase, phraseOf, type Token, tokensOf } from './phrase.extractor';
import { describedCodes, fieldFamily, holdsIdentifier, type SchemaField } from './schema.fields';
import { contentWords, escapeRegExp, nameWords, overlaps, stem, wordMatches } from './text-span.util';

type Entity = 'place' | 'person' | 'group' | 'work';

/** What a field's words say it names. Checked in this order, the field's name before its description. */
const ENTITY_WORDS: [Entity, Set<string>][] = [
  [
    'place',
    new Set(
      'city town location place country region state area address destination venue where province neighborhood neighbourhood county continent origin departure village district locality'.split(' '),
    ),
  ],
  [
    'person',
    new Set(
      'person player author artist actor actress director singer composer musician athlete writer painter scientist inventor celebrity politician individual character receiver recipient payee contact'.split(
        ' ',
      ),
    ),
  ],
  ['group', new Set('team company club organization organisation brand manufacturer maker band publisher university school league firm corporation'.split(' '))],
  ['work', new Set('title book movie film song album game show recipe dish painting artwork novel series track poem model'.split(' '))],
];
/** Words a name's head noun is not: they say what a field is, not what it is about. */
const GENERIC = new Set(['type', 'kind', 'name', 'category', 'value', 'specific', 'desired', 'preferred', 'optional', 'the', 'of', 'for', 'in', 'to', 'string', 'text', 'input', 'param']);
const NOT_MODIFIERS = new Set(
  'a an the my your our their his her its this that these those some any all each every both several few more most top best nearest other same following given specific certain particular current upcoming next last first second third of in on at for to from by with and or is are be been was were what which how many much one two three four five six seven eight nine ten equivalent corresponding resulting respective relevant appropriate desired required associated related overall entire whole exact'.split(
    ' ',
  ),
);
const PLACE_CUES = new Set(['in', 'at', 'near', 'around', 'from', 'to', 'within', 'of', 'for', 'across', 'inside', 'outside']);
/** Words for a place that holds others ("Japan" of "Tokyo, Japan") and for one that does not ("Tokyo"). */
const WIDE = ['country', 'state', 'province', 'region', 'county', 'continent'];
const NARROW = ['city', 'town', 'village', 'location', 'place', 'address', 'venue'];
// `_from`: a leading underscore keeps a keyword off the name, nothing more.
const FROM_FIELD = /^_*(?:from|source|origin|departure|start|pickup|src)/;
const TO_FIELD = /^_*(?:to|destination|target|arrival|end|dest|dropoff)/;
const REQUIRED_EVIDENCE = 2;
/** An optional field is filled only on strong evidence: a wrong optional value fails a call a missing one would not. */
const OPTIONAL_EVIDENCE = 4;

interface Scored {
  field: SchemaField;
  phrase: Phrase;
  score: number;
}

export function fillPhrases(state: Filling, fields: SchemaField[]): void {
  const asked = new Set(state.fill.ambiguous.map((a) => a.path));
  const open = fields.filter((f) => !(f.name in state.fill.arguments) && !asked.has(`/${f.name}`));
  if (open.length === 0) return;
  const tokens = tokensOf(state.text);
  const blocked = [...state.used, ...state.opaque, ...state.dates, ...state.paths];
  const free = (span: Span) => !blocked.some((b) => overlaps(b, span));
  const proper = extractProperPhrases(state.text, tokens, blocked);
  const scored: Scored[] = [];
  const numbered = (f: SchemaField) => fieldFamily(f) !== f.name && fields.filter((g) => fieldFamily(g) === fieldFamily(f)).length > 1;
  for (const field of open) {
    const entity = entityOf(field) ?? pairedPlace(field, fields);
    // "Premier League" for `league`, "Louvre Museum" for `museum`: a name that ends on the field's own noun is the one.
    const ownNamed = proper.filter((p) => endsOnOwnNoun(p, field));
    for (const written of ownNamed.length > 0 ? ownNamed : proper) {
      const phrase = trimmed(state.text, tokens, written, field);
      // "in Indian musical scale" for note_conversion.indian: the tool's own name says what it does, no value.
      if (!phrase || namedByTool(state, phrase)) continue;
      const score = properScore(state, field, entity, phrase, numbered(field));
      if (score > 0) scored.push({ field, phrase, score });
    }
    for (const phrase of exampleHits(state.text, field)) {
      if (!free(phrase)) continue;
      scored.push({ field, phrase, score: 6 });
      // "Neutron and Proton" where the description names Proton: the names listed with an example are of its kind.
      for (const sibling of listedWith(state.text, proper, phrase)) scored.push({ field, phrase: sibling, score: 6 });
    }
    for (const phrase of shapeHits(state.text, field)) if (free(phrase)) scored.push({ field, phrase, score: 4 });
    for (const written of qualifiers(state.text, tokens, proper, field, entity === 'person')) {
      const phrase = trimmed(state.text, tokens, written, field);
      if (!phrase || !free(phrase)) continue;
      // "from my checking to saving account": a field with a side takes the qualifier written on its side.
      const side = field.role ? state.hintOf(phrase) : undefined;
      if (side && side !== field.role) continue;
      scored.push({ field, phrase, score: 3 + (entity && phrase.proper ? 1 : 0) + (side ? 2 : 0) });
    }
  }
  // "San Francisco, CA and Seattle, WA": places with their regions are listed with each other, and names with
  // names or with a place and its region ("Boston, MA and Chicago"); a region is its place's, never an item after
  // it ("Seattle, Washington"). The two ends of a trip ("between Boston, MA, and Washington, D.C.") are a pair, not a list.
  const listable = scored.filter((s) => !FROM_FIELD.test(s.field.name) && !TO_FIELD.test(s.field.name));
  shareListScores(
    state.text,
    listable.filter((s) => s.phrase.part === 'whole'),
    (s) => s.phrase,
  );
  shareListScores(
    state.text,
    listable.filter((s) => s.phrase.part === undefined || s.phrase.part === 'head' || s.phrase.part === 'whole'),
    (s) => s.phrase,
  );
  // An identifier is a code ("case A-113"), never a word that qualifies it ("the most impactful cases").
  assign(
    state,
    open,
    scored.filter((s) => !holdsIdentifier(s.field) || /\d/.test(s.phrase.value)),
  );
}

export function entityOf(field: SchemaField): Entity | undefined {
  const description = String(field.schema.description ?? '');
  const named = (words: string[]) => ENTITY_WORDS.find(([, cues]) => words.some((w) => cues.has(w)))?.[0];
  // The field's own name first, then what its description names: `to`, "The arrival city in full name", is a place.
  const own = named(field.nameWords);
  if (own) return own;
  // "Type of sports the celebrity plays": a kind of thing, whatever else the description names.
  if (/^(?:the\s+)?(?:type|kind|category|sort|genre|class)\s+of\b/i.test(description)) return undefined;
  return named(field.descriptionWords.slice(0, 8)) ?? (/\bfull name\b|\bname of the person\b/i.test(description) ? 'person' : undefined);
}

function endsOnOwnNoun(phrase: Phrase, field: SchemaField): boolean {
  const words = phrase.value.split(/\s+/);
  const last = stem(words[words.length - 1] ?? '');
  return words.length > 1 && field.nameWords.some((w) => !GENERIC.has(w) && wordMatches(w, last));
}

/** `start` beside `destination`: the other end of a trip whose one end is a place is a place too. */
function pairedPlace(field: SchemaField, fields: SchemaField[]): Entity | undefined {
  const from = FROM_FIELD.test(field.name);
  if (!from && !TO_FIELD.test(field.name)) return undefined;
  const other = fields.find((f) => f !== field && (from ? TO_FIELD : FROM_FIELD).test(f.name));
  return other && entityOf(other) === 'place' ? 'place' : undefined;
}

/** The one start and one end place of a trip a tool takes (origin/destination, start_location/end_location), if it takes no stops between. */
export function tripEnds(fields: SchemaField[]): { source: SchemaField; target: SchemaField } | undefined {
  const sources = fields.filter((f) => f.kind === 'text' && FROM_FIELD.test(f.name));
  const targets = fields.filter((f) => f.kind === 'text' && TO_FIELD.test(f.name));
  if (sources.length !== 1 || targets.length !== 1 || fields.some((f) => f.kind === 'string-list')) return undefined;
  const [source, target] = [sources[0], targets[0]];
  return (entityOf(source) ?? pairedPlace(source, fields)) === 'place' && (entityOf(target) ?? pairedPlace(target, fields)) === 'place' ? { source, target } : undefined;
}

function properScore(state: Filling, field: SchemaField, entity: Entity | undefined, phrase: Phrase, numbered: boolean): number {
  const near = Math.min(fieldScore(state, field, phrase), 2);
  // "from English to French" for source_language / target_language: the side the words give is the field's.
  if (!entity && field.required && field.role && phrase.before && ['from', 'to', 'into'].includes(phrase.before) && state.hintOf(phrase) === field.role) return 2 + near;
  // body1/body2, species_a/species_b: fields of one kind, each taking one of the names written.
  if (!entity) return near >= 2 ? near : numbered ? 2 : 0;
  let score = 2 + near;
  const words = [...field.nameWords, ...field.descriptionWords.slice(0, 8)];
  if (entity === 'place') {
    if (phrase.before && PLACE_CUES.has(phrase.before)) score += 2;
    const from = FROM_FIELD.test(field.name);
    const to = TO_FIELD.test(field.name);
    // "from A to B", "between A and B": the side the words give.
    const side = state.hintOf(phrase);
    if ((from && side === 'source') || (to && side === 'target')) score += 2;
    if ((from && side === 'target') || (to && side === 'source')) score -= 3;
    // The field's own name says which part it wants ("country": "The country of the city you specified"); its description only when the name does not.
    const named = field.nameWords.some((w) => WIDE.includes(w) || NARROW.includes(w)) ? field.nameWords : words;
    const wide = named.some((w) => WIDE.includes(w));
    const narrow = named.some((w) => NARROW.includes(w));
    // "Sydney, Australia": the city for a city field, the country for a country field, both for "city and state".
    // "in the format of City, State", "e.g. Boston, MA": the field wants the place with its region.
    const withRegion = /\bcity,\s*(?:state|country|region)\b|\b[A-Z][a-z]+(?: [A-Z][a-z]+)*, [A-Z][A-Za-z]+\b/.test(String(field.schema.description ?? ''));
    if (phrase.part === 'whole') score += (wide && narrow) || withRegion ? 2 : 0;
    if (phrase.part === 'head') score += narrow && !wide ? 1 : wide && !narrow ? -2 : 0;
    if (phrase.part === 'tail') score += wide && !narrow ? 1 : -1;
  } else if (entity === 'person') {
    score += phrase.value.includes(' ') ? 1 : 0;
    // "songs by Kesha", "directed by Greta Gerwig", "starring Emma Stone": the words before a name say which role it has.
    if (playsRole(state.text.slice(0, phrase.start), field)) score += 2;
    // "a Tennis player", "the Jazz singer": a name written right before a word for a person says which kind.
    const next = /^\s+([a-z]+)/i.exec(state.text.slice(phrase.end))?.[1].toLowerCase();
    if (next && ENTITY_WORDS[1][1].has(stem(next))) score -= 3;
    if (phrase.before && PLACE_CUES.has(phrase.before) && phrase.before !== 'of' && phrase.before !== 'for') score -= 2;
  } else if (phrase.before && ['in', 'near', 'at', 'around'].includes(phrase.before)) score -= 1;
  // "Patent lawsuit cases of Facebook": one capitalised word right before a noun of the tool's own says which
  // kind of that noun, not whose.
  if (entity !== 'place' && !phrase.value.includes(' ') && ownNounAfter(state, phrase)) score -= 2;
  // "the Los Angeles Lakers basketball team" for `team`: a name the field's own noun follows is one of its kind.
  else if (entity && entity !== 'person' && namedAfter(state, phrase, field)) score += 2;
  return score;
}

/** The roles a cue written right before a name gives it, as words a field for that role is named or described by. */
const ROLE_CUES: [RegExp, string[]][] = [
  [/\bdirected\s+by\s*$/i, ['direct', 'director']],
  [/\b(?:written|authored)\s+by\s*$/i, ['author', 'writer', 'write']],
  [/\bcomposed\s+by\s*$/i, ['composer', 'compos']],
  [/\b(?:starring|stars|featuring|features|feat\.?|with(?:\s+the)?\s+(?:actor|actress))\s*$/i, ['cast', 'actor', 'actress', 'star', 'starring']],
  [/\bby\s*$/i, ['artist', 'author', 'director', 'singer', 'composer', 'writer', 'creator', 'performer', 'musician', 'band']],
  // "send $200 to my friend Alice", "pay Jerry": who receives.
  [
    /\bto(?:\s+(?:my|our|his|her|their))?(?:\s+(?:friend|colleague|landlord|brother|sister|mom|dad|mother|father|wife|husband|son|daughter|partner|boss|manager|roommate|neighbou?r|cousin|uncle|aunt))?\s*$/i,
    ['receiver', 'recipient', 'payee', 'contact'],
  ],
];

function playsRole(before: string, field: SchemaField): boolean {
  const roles = ROLE_CUES.find(([cue]) => cue.test(before))?.[1];
  const words = [...field.nameWords, ...field.descriptionWords.slice(0, 12)].map(stem);
  return !!roles && words.some((w) => roles.some((r) => wordMatches(r, w)));
}

/** The proper names written in one list with `item` ("Neutron and Proton", "Oslo, Bergen or Trondheim"), itself left out. */
function listedWith(text: string, proper: Phrase[], item: Phrase): Phrase[] {
  const names = proper.filter((p) => p.part !== 'head' && p.part !== 'tail' && !overlaps(p, item)).sort((a, b) => a.start - b.start);
  const run: Phrase[] = [];
  for (let first = item; ; ) {
    const before = names.filter((p) => p.end <= first.start && joinedAsList(text, [p, first])).at(-1);
    if (!before) break;
    run.unshift(before);
    first = before;
  }
  for (let last = item; ; ) {
    const after = names.find((p) => p.start >= last.end && joinedAsList(text, [last, p]));
    if (!after) break;
    run.push(after);
    last = after;
  }
  return run;
}

/** The field's own noun is written right after the name, or one word after it ("Lakers team", "Lakers basketball team"). */
function namedAfter(state: Filling, phrase: Phrase, field: SchemaField): boolean {
  const after = /^[ \t]+([a-z]+)(?:[ \t]+([a-z]+))?/.exec(state.text.slice(phrase.end));
  const nouns = field.nameWords.filter((w) => !GENERIC.has(w) && !/^\d+$/.test(w));
  return !!after && [after[1], after[2]].some((w) => w !== undefined && nouns.some((n) => wordMatches(n, stem(w))));
}

/** Every word of the phrase is a word of the tool's own name. */
function namedByTool(state: Filling, phrase: Phrase): boolean {
  const tool = state.context.tool;
  if (!tool) return false;
  const own = nameWords(tool.name).map(stem);
  return phrase.value.split(/\s+/).every((word) => own.some((w) => wordMatches(w, stem(word.toLowerCase()))));
}

/** The word right after the phrase is a noun of the tool's own name or description ("Patent lawsuit" for get_lawsuit_cases). */
function ownNounAfter(state: Filling, phrase: Phrase): boolean {
  const next = /^[ \t]+([a-z]{3,})\b/.exec(state.text.slice(phrase.end))?.[1];
  const tool = state.context.tool;
  if (!next || !tool) return false;
  return toolWords(tool).some((w) => wordMatches(w, stem(next)));
}

/** A tool's own words, stemmed: its name's and its description's (read once per tool). */
const TOOL_WORDS = new WeakMap<object, string[]>();
function toolWords(tool: { name: string; description?: string }): string[] {
  const known = TOOL_WORDS.get(tool);
  if (known) return known;
  const words = [...nameWords(tool.name).map(stem), ...contentWords(tool.description)];
  TOOL_WORDS.set(tool, words);
  return words;
}

/**
 * Values written in the shape of an example the description gives, where that shape is a code's, not a
 * word's: "C Major" (a lone capital and a name) finds "D Minor", "4/4" finds "3/4", "A-12" finds "B-7".
 */
function shapeHits(text: string, field: SchemaField): Phrase[] {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const hits: Phrase[] = [];
  for (const m of description.matchAll(/\b(?:e\.g\.?|eg\.|for example|such as|like)[,:]?\s+([^;()]+?)(?=\.(?:\s|$)|[;()]|$)/gi)) {
    for (const example of m[1].split(/\s*(?:,|\bor\b|\band\b)\s*/)) {
      const runs = example.trim().match(/[A-Z][a-z]+|[A-Z](?![a-z])|[a-z]+|\d+(?:\.\d+)?|\s+|[^\sA-Za-z\d]/g) ?? [];
      const code = runs.some((r) => /^\d/.test(r) || /^[A-Z]$/.test(r)) && runs.filter((r) => !/^\s+$/.test(r)).length >= 2;
      if (!code) continue;
      const shape = runs.map((r) => (/^\s+$/.test(r) ? '\\s+' : /^\d/.test(r) ? '\\d+(?:\\.\\d+)?' : /^[A-Z]$/.test(r) ? '[A-Z]' : /^[A-Z]/.test(r) ? '[A-Z][a-z]+' : escapeRegExp(r))).join('');
      for (const hit of text.matchAll(new RegExp(`(?<![\\w/.-])${shape}(?![\\w/-]|\\.\\d)`, 'g')))
        hits.push({ start: hit.index, end: hit.index + hit[0].length, text: hit[0], value: hit[0], proper: /^[A-Z]/.test(hit[0]) });
    }
  }
  return hits;
}

/** Examples the description gives ("e.g. Windows 10", "like vegan, vegetarian", "'draft' or 'concluded'") that the text names. */
export function exampleHits(text: string, field: SchemaField): Phrase[] {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const examples = new Set<string>();
  // A quote opens after no letter: the apostrophe of "company's" opens nothing.
  for (const m of description.matchAll(/(?<!\w)['"‘“]([^'"’”]{1,40})['"’”](?!\w)/g)) examples.add(m[1]);
  for (const m of description.matchAll(/\b(?:e\.g\.?|eg\.|i\.e\.?|such as|like|for example|for instance|example:?|including|could be|can be|options(?: are)?:?|one of)[,:]?\s+([^.;()]+)/gi)) {
    for (const part of m[1].split(/\s*(?:,|\bor\b|\band\b|\/|\betc\b)\s*/)) examples.add(part.replace(/^['"‘“]|['"’”]$/g, '').trim());
  }
  // "The type of paint (Watercolor, Oil, Acrylic)", "(percentage or fraction)": a short list in brackets is the choices.
  for (const m of description.matchAll(/\(([^()]{3,80})\)/g)) {
    const items = m[1]
      .split(/\s*(?:,|\bor\b|\/)\s*/)
      .map((item) => item.trim())
      .filter(Boolean);
    if (items.length >= 2 && items.every((item) => item.split(/\s+/).length <= 3 && !/\d|\b(?:e\.g|default|optional|required)\b/i.test(item))) for (const item of items) examples.add(item);
  }
  const hits: Phrase[] = [];
  // "'asc' for ascending order", "'C' for Celsius": a code the description gives for a word the text writes.
  for (const [word, code] of describedCodes(field)) {
    const said = new RegExp(`(?<![\\w-])${escapeRegExp(word)}(?![\\w-])`, 'i').exec(text);
    if (said) hits.push({ start: said.index, end: said.index + said[0].length, text: said[0], value: code, proper: false });
  }
  const words = [...text.matchAll(/[A-Za-z][A-Za-z-]*/g)];
  for (const example of examples) {
    if (example.length < 2 || /^(?:the|a|an|default|etc)$/i.test(example)) continue;
    const m = new RegExp(`(?<![\\w-])${escapeRegExp(example)}(?!\\w)`, 'i').exec(text);
    if (m) hits.push({ start: m.index, end: m.index + m[0].length, text: m[0], value: m[0], proper: /^[A-Z]/.test(m[0]) });
    // "detail information" for 'detailed': a one-word example the text writes in another form is that example.
    else if (/^[a-z]{5,}$/i.test(example)) {
      const inflected = words.find((w) => w[0].length >= 5 && wordMatches(stem(example), stem(w[0])));
      if (inflected) hits.push({ start: inflected.index, end: inflected.index + inflected[0].length, text: inflected[0], value: example, proper: false });
    }
  }
  return hits;
}

/** "Lawyer John Doe" for "the full name of the lawyer", "Rosewood Finish" for `finish`: the field's own nouns are not the value. */
function trimmed(text: string, tokens: Token[], phrase: Phrase, field: SchemaField): Phrase | undefined {
  const own = (t: Token) => [...field.nameWords, ...headNouns(field)].some((w) => wordMatches(w, stem(t.value)));
  const inside = tokens.filter((t) => t.start >= phrase.start && t.end <= phrase.end);
  // Part of one token ("gas" of "gas-fueled"): nothing to trim.
  if (inside.length === 0) return phrase;
  let [first, last] = [0, inside.length - 1];
  // "Battle of Stalingrad", "Hotel Paradise", "Museum of Modern Art": a capitalised first word is the name's own too,
  // except a person's title ("Lawyer John Doe").
  const named = phrase.proper && inside.length > 1 && inside[0].proper && entityOf(field) !== 'person';
  while (first <= last && own(inside[first]) && !named) first++;
  // "Premier League" for `league`, "Orange County Court" for `court`: a capitalised last word is the name's own.
  while (last >= first && own(inside[last]) && !(phrase.proper && inside[last].proper && last > first)) last--;
  if (first > last) return undefined;
  if (first === 0 && last === inside.length - 1) return phrase;
  return { ...phraseOf(text, tokens, inside[first], inside[last]), part: phrase.part };
}

/** "The subject of the sculpture", "The genre of music of the concert": what a field's description says it belongs to. */
const BELONGS_TO = /^(?:the\s+)?(?:\w+\s+){0,2}of\s+(?:the\s+|a\s+|an\s+)?([A-Za-z]+)/i;

/** The nouns a field is about: its name's own ("crime" of crime_type) and the description's "of the X". */
function headNouns(field: SchemaField): string[] {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const heads = field.nameWords.filter((w) => !GENERIC.has(w) && !/^\d+$/.test(w));
  const of = BELONGS_TO.exec(description);
  if (of) heads.push(stem(of[1]));
  // "The genre of music of the concert": what the kind belongs to is a head too ("classical concerts").
  const owner = of ? /^\s+of\s+(?:the\s+|a\s+|an\s+)([A-Za-z]+)/i.exec(description.slice((of.index ?? 0) + of[0].length)) : null;
  if (owner) heads.push(stem(owner[1]));
  return [...new Set(heads)];
}

/**
 * Words the text writes against one of the field's head nouns: the word before it ("theft crimes",
 * "acoustic instrument", "gas-fueled" for fuel), or a name or code after it ("the note C4").
 */
function qualifiers(text: string, tokens: Token[], proper: Phrase[], field: SchemaField, person = false): Phrase[] {
  const heads = headNouns(field);
  if (heads.length === 0) return [];
  // The thing the field is a part of, when the description says so ("The subject of the sculpture").
  const belongsTo = BELONGS_TO.exec(String(field.schema.description ?? ''));
  const owner = belongsTo ? stem(belongsTo[1]) : undefined;
  const within = (token: Token) => proper.filter((p) => p.part !== 'whole' && p.start <= token.start && token.end <= p.end).sort((a, b) => b.end - b.start - (a.end - a.start))[0];
  const word = (token: Token) => !NOT_MODIFIERS.has(token.value.toLowerCase()) && !isCommonWord(token.value) && !/^\d/.test(token.value);
  const modifier = (token: Token | undefined, after: Token): token is Token => !!token && /^[ \t]+$/.test(text.slice(token.end, after.start)) && word(token);
  const found: Phrase[] = [];
  tokens.forEach((token, i) => {
    const parts = token.value.toLowerCase().split('-');
    if (parts.length > 1) {
      // "gas-fueled" for fuel, "solar-powered" for power: the noun's own -ed form names it too.
      const hit = parts.findIndex((p) => heads.some((h) => wordMatches(h, stem(p)) || (h.length >= 4 && new RegExp(`^${escapeRegExp(h)}(?:l?ed|d)$`).test(p))));
      if (hit > 0) {
        const value = token.value.split('-').slice(0, hit).join('-');
        found.push({ start: token.start, end: token.start + value.length, text: value, value, proper: false });
      }
      return;
    }
    const next = tokens[i + 1];
    // "Case No 28473", "Invoice No. 7": "No" before a number is the word "number".
    const numberSign = /^no$/i.test(token.value) && /^\d/.test(next?.value ?? '') && heads.includes('number') && /^\.?[ \t]+$/.test(text.slice(token.end, next.start));
    if (!numberSign && !heads.some((h) => wordMatches(h, stem(token.value)))) return;
    // "The subject of the sculpture": "a custom sculpture of a dog" says it after the noun, whatever comes before it.
    const article = /^(?:a|an|the)$/i.test(tokens[i + 2]?.value ?? '') ? 1 : 0;
    const subject = next?.value.toLowerCase() === 'of' ? tokens[i + 2 + article] : undefined;
    if (subject && owner !== undefined && wordMatches(owner, stem(token.value)) && word(subject) && /^[ \t]+$/.test(text.slice(token.end, next.start))) {
      found.push(within(subject) ?? phraseOf(text, tokens, subject, subject));
      return;
    }
    const previous = tokens[i - 1];
    // "a tennis player" says which kind of player, never which person: a person's name is written after the noun.
    // "two primary colors" for color1 ("The first primary color"): a qualifier the description itself puts on the noun defines the field.
    const defining = previous !== undefined && new RegExp(`\\b${escapeRegExp(previous.value)}\\s+${escapeRegExp(stem(token.value))}`, 'i').test(String(field.schema.description ?? ''));
    if (!person && !defining && modifier(previous, token) && !field.nameWords.some((n) => wordMatches(n, stem(previous.value)))) {
      found.push(within(previous) ?? phraseOf(text, tokens, previous, previous));
      // "yellow and blue colors", "red, green or blue colors": each item of the list qualifies the noun.
      for (let k = i - 1; ; ) {
        const joiner = tokens[k - 1];
        let item: Token | undefined;
        if (joiner && /^(?:and|or)$/i.test(joiner.value)) item = tokens[k - 2] && /^,?[ \t]+$/.test(text.slice(tokens[k - 2].end, joiner.start)) ? tokens[k - 2] : undefined;
        else if (joiner && /^\s*,\s*$/.test(text.slice(joiner.end, tokens[k].start))) item = joiner;
        // "12 months and wind energy": a unit after its number is an amount, no item of the list.
        if (!item || !word(item) || /^\d/.test(tokens[tokens.indexOf(item) - 1]?.value ?? '')) break;
        found.push(within(item) ?? phraseOf(text, tokens, item, item));
        k = tokens.indexOf(item);
      }
    }
    if (
      next &&
      (numberSign ? /^\.?[ \t]+$/ : /^[ \t]+$/).test(text.slice(token.end, next.start)) &&
      /[A-Z0-9]/.test(next.value) &&
      !NOT_MODIFIERS.has(next.value.toLowerCase()) &&
      !isCommonWord(next.value)
    ) {
      found.push(within(next) ?? { ...phraseOf(text, tokens, next, next), proper: true });
    }
    // "account number - 987654", "order ID: A-12": the noun, a word that labels a code, then the code.
    const code = next && /^(?:number|no|id|code)$/i.test(next.value) ? tokens[i + 2] : undefined;
    if (code && /\d/.test(code.value) && /^[ \t]+$/.test(text.slice(token.end, next.start)) && /^\.?[ \t]*[-:#]?[ \t]*$/.test(text.slice(next.end, code.start))) {
      found.push({ ...phraseOf(text, tokens, code, code), proper: true });
    }
  });
  return found;
}

/**
 * Best evidence first. Fields that compete for the same names at the same strength take them in the
 * order both are written ("between Chicago Bulls and Los Angeles Lakers" → team1, team2); one field
 * with two equally good names is a question.
 */
function assign(state: Filling, fields: SchemaField[], scored: Scored[]): void {
  const done = new Set<SchemaField>();
  // Names a better-evidenced field is unsure between are still that field's: a weaker field never takes them.
  const claimed: Span[] = [];
  const threshold = (f: SchemaField) => (f.required ? REQUIRED_EVIDENCE : OPTIONAL_EVIDENCE);
  for (;;) {
    const live = scored.filter((s) => !done.has(s.field) && s.score >= threshold(s.field) && state.isFree(s.phrase) && !claimed.some((c) => overlaps(c, s.phrase)));
    if (live.length === 0) return;
    const best = Math.max(...live.map((s) => s.score));
    const level = live.filter((s) => s.score === best);
    const levelFields = fields.filter((f) => level.some((s) => s.field === f));
    const options = (f: SchemaField) => distinctPhrases(level.filter((s) => s.field === f).map((s) => s.phrase));
    const shared = distinctPhrases(level.map((s) => s.phrase));
    if (levelFields.length > 1 && shared.length === levelFields.length && levelFields.every((f) => options(f).length === shared.length)) {
      levelFields.forEach((field, i) => {
        state.set(field, { value: shared[i].value, span: shared[i] });
        done.add(field);
      });
      continue;
    }
    const field = levelFields.find((f) => options(f).length === 1) ?? levelFields[0];
    const mine = options(field);
    // "a concert of Taylor Swift in New York": the place field fits both names as well, the artist field
    // only the first; the field with less to lose waits, so each gets the name it fits.
    const rival = mine.length === 1 ? rivalFor(live, field, mine[0], done) : undefined;
    if (rival) {
      state.set(rival.field, { value: rival.phrase.value, span: rival.phrase });
      done.add(rival.field);
      continue;
    }
    done.add(field);
    if (mine.length === 1) state.set(field, { value: mine[0].value, span: mine[0] });
    // "with resistivity of copper and aluminum": an optional field given a list asks for a call per item too.
    else if (field.required || (joinedAsList(state.text, mine) && !/\bor\b/i.test(state.text.slice(mine[0].end, mine.at(-1)?.start)))) {
      state.ambiguous(
        field,
        mine.map((p) => p.value),
        mine,
      );
      claimed.push(...mine);
    } else state.unsure.add(field.name);
  }
}

/** What a field loses when it cannot have its best phrase: its best score over the next best elsewhere. */
function regret(live: Scored[], field: SchemaField, phrase: Phrase): number {
  const own = live.filter((s) => s.field === field);
  const best = Math.max(...own.filter((s) => s.phrase === phrase).map((s) => s.score));
  const others = own.filter((s) => !overlaps(s.phrase, phrase)).map((s) => s.score);
  return best - (others.length > 0 ? Math.max(...others) : 0);
}

/** Another field whose own best phrase is this one and who would lose more without it than `field` would. */
function rivalFor(live: Scored[], field: SchemaField, phrase: Phrase, done: Set<SchemaField>): Scored | undefined {
  const mine = regret(live, field, phrase);
  return live
    .filter((s) => s.field !== field && !done.has(s.field) && overlaps(s.phrase, phrase))
    .filter((s) => s.score === Math.max(...live.filter((t) => t.field === s.field).map((t) => t.score)))
    .find((s) => regret(live, s.field, s.phrase) > mine);
}

/** One phrase per place in the text (the longer of two that overlap), in the order written. */
function distinctPhrases(phrases: Phrase[]): Phrase[] {
  const sorted = [...phrases].sort((a, b) => b.end - b.start - (a.end - a.start));
  const kept: Phrase[] = [];
  for (const phrase of sorted) if (!kept.some((k) => overlaps(k, phrase) || k.value.toLowerCase() === phrase.value.toLowerCase())) kept.push(phrase);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * A list field whose description names the items it takes ("categories … including points, assists,
 * rebounds, minutes") takes the ones the text writes, two or more, in the order written.
 */
export function fillExampleLists(state: Filling, fields: SchemaField[]): void {
  for (const field of fields.filter((f) => state.isOpen(f))) {
    const hits = exampleHits(state.text, field)
      .filter((hit) => state.isFree(hit))
      .sort((a, b) => a.start - b.start)
      .filter((hit, i, all) => all.findIndex((other) => overlaps(other, hit)) === i);
    if (hits.length < 2) continue;
    state.set(field, { value: hits.map((hit) => hit.value), span: { start: hits[0].start, end: hits[hits.length - 1].end, text: state.text.slice(hits[0].start, hits[hits.length - 1].end) } });
    state.used.push(...hits);
  }
}

/**
 * A list field of names ("companies", "players") the words did not fill takes the one run of names the
 * text writes as a list: "Microsoft and Google", "Lisbon, Porto and Faro". Two such runs are a question
 * left to CLARIFY; one name alone is not a list.
 */
export function fillNameLists(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => !(f.name in state.fill.arguments));
  if (open.length !== 1) return;
  const tokens = tokensOf(state.text);
  const blocked = [...state.used, ...state.opaque, ...state.dates, ...state.paths];
  const names = extractProperPhrases(state.text, tokens, blocked).filter((p) => p.part !== 'whole' && p.part !== 'tail');
  const runs: Phrase[][] = [];
  for (const name of names.sort((a, b) => a.start - b.start)) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && last.end <= name.start && joinedAsList(state.text, [last, name]) && !/\bor\b/i.test(state.text.slice(last.end, name.start))) run.push(name);
    else runs.push([name]);
  }
  const lists = runs.filter((r) => r.length > 1);
  if (lists.length !== 1) return;
  const [list] = lists;
  const span = { start: list[0].start, end: list[list.length - 1].end, text: state.text.slice(list[0].start, list[list.length - 1].end) };
  state.set(open[0], { value: list.map((p) => p.value), span });
}
