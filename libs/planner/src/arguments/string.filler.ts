// String fields: URLs, emails, paths, expressions, names and free text (quotes, JSON, tables, what follows a colon).
import type { Span } from './argument-fill.types';
import { type Filling, fieldScore, joinedAsList } from './filling.state';
import { extractPersonName } from './person-name.extractor';
import { exampleHits, tripEnds } from './phrase.filler';
import { holdsIdentifier, type SchemaField } from './schema.fields';
import { extractExpressions } from './structured.extractor';
import { extractCsvBlock } from './table-text.extractor';
import { overlaps, stem, wordMatches } from './text-span.util';

const IMAGE_WORDS = /\b(?:image|screenshot|picture|photo|scan|attached|attachment|upload(?:ed)?)\b/i;

export function fillUrl(state: Filling, field: SchemaField): void {
  state.single(
    field,
    state.urls.filter((u) => state.isFree(u)).map((u) => ({ value: u.value, span: u })),
  );
}

/**
 * Email fields take the addresses written. Several fields ("to", "cc") each take the address their
 * words point at ("carbon copy it to 'b@x.org'"), best first; a field left open takes what is left.
 * Addresses written as one list are items of the first field, one call each.
 */
export function fillEmails(state: Filling, fields: SchemaField[]): void {
  const free = () => state.emails.filter((e) => state.isFree(e)).map((e) => ({ value: e.value, span: e as Span }));
  // Addresses written as one list ("to a@x.org and b@x.org") are one field's items, not one for each field.
  if (
    fields.length > 1 &&
    !joinedAsList(
      state.text,
      free().map((c) => c.span),
    )
  ) {
    const scored = fields.flatMap((field) => free().map((c) => ({ field, c, score: fieldScore(state, field, c.span) })));
    scored.sort((a, b) => b.score - a.score || a.c.span.start - b.c.span.start);
    for (const { field, c, score } of scored) if (score > 0 && state.isOpen(field) && state.isFree(c.span)) state.set(field, c);
    // "carbon copy the email to my manager at m@x.org": the words that point sit further back than a value's
    // neighbours, anywhere in its clause. Only words that tell the fields apart count ("email" is every field's).
    const open = fields.filter((f) => state.isOpen(f));
    if (open.length > 0 && free().length > 1) {
      const wordsOf = (f: SchemaField) => new Set([...f.nameWords, ...f.descriptionWords]);
      const shared = [...wordsOf(fields[0])].filter((w) => fields.every((f) => wordsOf(f).has(w)));
      const addresses = free().map((c) => ({ c, clause: clauseBefore(state, c.span) }));
      const clauseScored = open.flatMap((field) => {
        const telling = [...wordsOf(field)].filter((w) => !shared.includes(w));
        return addresses.map(({ c, clause }) => ({ field, c, score: telling.filter((w) => clause.some((word) => wordMatches(w, word))).length }));
      });
      clauseScored.sort((a, b) => b.score - a.score || a.c.span.start - b.c.span.start);
      for (const { field, c, score } of clauseScored) if (score > 0 && state.isOpen(field) && state.isFree(c.span)) state.set(field, c);
    }
  }
  for (const field of fields.filter((f) => state.isOpen(f))) state.single(field, free());
}

/** The stemmed words of a value's clause before it: back to a stop, a comma, an "and", or another email address. */
function clauseBefore(state: Filling, span: Span): string[] {
  let from = 0;
  for (const email of state.emails) if (email.end <= span.start) from = Math.max(from, email.end);
  const head = state.text.slice(from, span.start);
  const stop = Math.max(...[...head.matchAll(/[.;:!?,]\s|\band\b/gi)].map((m) => m.index + m[0].length), 0);
  return state.words.filter((w) => w.start >= from + stop && w.end <= span.start).map((w) => stem(w.word));
}

/** A quoted expression wins over one read from the bare text. */
export function fillExpression(state: Filling, field: SchemaField): void {
  // A quoted formula, not a quoted variable name beside it ("'3x^2 + 2x - 1' … where 'x' is the variable").
  const quotes = state.quoted.filter((q) => state.isFree(q)).map((q) => ({ value: q.value, span: q as Span }));
  const formulas = quotes.filter((q) => /[-+*/^%]|\w\s*\(/.test(q.value));
  const quoted = formulas.length > 0 ? formulas : quotes;
  const written = extractExpressions(state.text, [...state.opaque, ...state.used]).map((e) => ({ value: e.value, span: e as Span }));
  state.single(field, quoted.length > 0 ? quoted : written);
}

/** Words a quote needs to be a passage (a sentence to analyse) rather than a name or a label. */
const PASSAGE_WORDS = 4;

/**
 * Text fields take the quotes written for them; `pointed` fields (units the lexicon did not read, "the unit of
 * measure is 'square meters'") only a quote their words point at, never a leftover one.
 */
export function fillTexts(state: Filling, fields: SchemaField[], pointed: SchemaField[] = []): void {
  const quoted = state.quoted.filter((q) => state.isFree(q) && !state.used.some((u) => overlaps(u, q)));
  const open = [...fields, ...pointed].filter((f) => state.isOpen(f));
  const candidates = quoted.map((q) => ({ value: q.value, span: q as Span }));
  // "from 'Los Angeles' to 'New York'": a trip's quoted ends go to its start and end by the word before each.
  const trip = tripEnds(open);
  for (const c of trip ? candidates : []) {
    const side = state.hintOf(c.span);
    const field = side === 'source' ? trip?.source : side === 'target' ? trip?.target : undefined;
    if (field && state.isOpen(field) && state.isFree(c.span)) state.set(field, c);
  }
  // A quote goes to the field its neighbouring words name ("titled 'Q1'"), then the only field to the only quote.
  // A quote that ends on the field's own noun names it too ("'Queens Hotel'" for hotel_name).
  const ownNoun = (field: SchemaField, value: string) => {
    const last = stem(value.trim().split(/\s+/).at(-1)?.toLowerCase() ?? '');
    return value.trim().includes(' ') && field.nameWords.some((w) => w !== 'name' && w.length > 2 && wordMatches(w, last)) ? 2 : 0;
  };
  // Quotes the field's description names as examples ("e.g., 'Open', 'Close', 'High', 'Low'") are that field's, all of them.
  for (const field of open.filter((f) => !pointed.includes(f))) {
    const hits = exampleHits(state.text, field);
    const named = candidates.filter((c) => state.isFree(c.span) && hits.some((e) => overlaps(e, c.span)));
    if (named.length === 0 || !state.isOpen(field)) continue;
    state.single(field, named);
    state.used.push(...named.map((c) => c.span));
  }
  const scored = open.flatMap((field) => candidates.map((c) => ({ field, c, score: fieldScore(state, field, c.span) + ownNoun(field, c.value) })));
  scored.sort((a, b) => b.score - a.score || a.c.span.start - b.c.span.start);
  for (const { field, c, score } of scored) {
    if (score <= 0 || !state.isOpen(field) || !state.isFree(c.span)) continue;
    const listed = quotedListed(state, field, c, candidates, scored);
    if (listed.length > 1) {
      state.single(field, listed);
      // The items are this field's: no other field reads them as its own.
      state.used.push(...listed.map((item) => item.span));
    } else state.set(field, c);
  }
  const stillOpen = open.filter((f) => state.isOpen(f) && !pointed.includes(f));
  const left = candidates.filter((c) => state.isFree(c.span));
  const requiredOpen = stillOpen.filter((f) => f.required);
  const passages = stillOpen.filter((f) => f.long);
  const sentences = left.filter((c) => c.value.trim().split(/\s+/).length >= PASSAGE_WORDS);
  if (stillOpen.length === 1 && (stillOpen[0].required || left.length === 1)) state.single(stillOpen[0], left);
  else if (requiredOpen.length === 1 && left.length > 0) state.single(requiredOpen[0], left);
  // A quoted sentence is the passage a text field works on ("the sentiment of the review 'I love it here …'"),
  // not a language, name or label, however many of those are open.
  else if (passages.length === 1 && sentences.length === 1) state.set(passages[0], sentences[0]);
  for (const field of stillOpen.filter((f) => f.long && state.isOpen(f))) {
    const json = state.json.find((j) => state.isFree(j));
    if (json && /json/i.test(String(field.schema.description ?? ''))) {
      state.set(field, { value: json.text, span: json });
      continue;
    }
    const block = /\bcsv\b|\btable\b/i.test(`${field.name} ${field.schema.description ?? ''}`) ? extractCsvBlock(state.text) : undefined;
    if (block && state.isFree(block)) {
      state.set(field, { value: block.text, span: block });
      continue;
    }
    const colon = /:\s*\n|:\s+(?=\S)/.exec(state.text);
    if (colon && state.isFree({ start: colon.index, end: colon.index + 1, text: ':' }) && !state.urls.some((u) => colon.index >= u.start && colon.index < u.end)) {
      const start = colon.index + colon[0].length;
      const value = state.text.slice(start).trim();
      // What follows the colon may already be another field's ("sort in ascending order: ['Sam', 'Jack']").
      if (value && state.isFree({ start, end: state.text.length, text: value })) {
        state.set(field, { value, span: { start, end: state.text.length, text: value } });
        continue;
      }
    }
    if (state.context.imageText && IMAGE_WORDS.test(state.text)) {
      state.fill.arguments[field.name] = state.context.imageText;
      state.fill.evidence[field.name] = 'the text read from the image';
    }
  }
}

/**
 * The quotes that are items of one value's list for a field that takes one ("the topic "Climate Change" and
 * "Artificial Intelligence"", "the movie "Inception" and also the movie "The Dark Knight""): each joined to the
 * chosen quote as a list, or pointed at the field as strongly as it, and wanted by no other field more. Several
 * items make the field a list, so each gets its own call.
 */
function quotedListed<C extends { value: string; span: Span }>(state: Filling, field: SchemaField, chosen: C, candidates: C[], scored: { field: SchemaField; c: C; score: number }[]): C[] {
  const scoreFor = (target: SchemaField, c: C) => scored.find((s) => s.field === target && s.c === c)?.score ?? 0;
  const best = scoreFor(field, chosen);
  const wantedElsewhere = (c: C) => scored.some((s) => s.c === c && s.field !== field && s.score > scoreFor(field, c));
  const items = candidates.filter((c) => c === chosen || (state.isFree(c.span) && !wantedElsewhere(c) && (joinedAsList(state.text, [chosen.span, c.span]) || scoreFor(field, c) >= best)));
  return items.sort((a, b) => a.span.start - b.span.start);
}

/** A name written the way code names things ("my_data", "your_dataset_name"): a placeholder or variable the caller means as the value. */
const IDENTIFIER = /(?<![\w./@:-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w/@-]|\.\w)/g;

/** A code: letters and digits together, maybe in parts ("rs6034464", "XY-1234", "2022/AL2562"); not an ordinal, a time or a quantity with its unit. */
const CODE = /(?<![\w/.-])(?=[\w/-]*\d)(?=[\w/-]*[A-Za-z])(?!\d+(?:st|nd|rd|th|am|pm|[a-z]{1,3})\b)[A-Za-z0-9]+(?:[/-][A-Za-z0-9]+)*(?![\w/-])/g;

/** A season or span written as two years ("2018-2019", "2019/20"). */
const YEAR_SPAN = /(?<![\w/.-])\d{4}[-/–](?:\d{4}|\d{2})(?![\w/-])/g;

/**
 * The one string-list field open takes the one list of codes the text writes ("from 2018-2019 and
 * 2019-2020 season", "flights BA117, LH400 and AF22"): two or more, joined as a list.
 */
export function fillCodeLists(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => state.isOpen(f));
  if (open.length !== 1) return;
  const usable = (span: Span) => state.isFree(span) && !state.opaque.some((o) => overlaps(o, span));
  const codes = [...state.text.matchAll(YEAR_SPAN), ...state.text.matchAll(CODE)]
    .map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }))
    .filter(usable)
    .sort((a, b) => a.start - b.start)
    .filter((span, i, all) => all.findIndex((other) => overlaps(other, span)) === i);
  const runs: Span[][] = [];
  for (const code of codes) {
    const run = runs.at(-1);
    if (run && joinedAsList(state.text, [run[run.length - 1], code])) run.push(code);
    else runs.push([code]);
  }
  const lists = runs.filter((run) => run.length > 1);
  if (lists.length !== 1) return;
  const [list] = lists;
  state.set(open[0], { value: list.map((code) => code.text), span: { start: list[0].start, end: list[list.length - 1].end, text: state.text.slice(list[0].start, list[list.length - 1].end) } });
  state.used.push(...list);
}

/**
 * Text fields take the code-style names the text gives ("train on dataset your_dataset_name", "objects in the image
 * my_backyard_image_url"): each goes to the field its neighbouring words or its own parts name, never one that is
 * the tool's or a field's own name.
 */
export function fillIdentifiers(state: Filling, fields: SchemaField[]): void {
  const open = fields.filter((f) => state.isOpen(f));
  if (open.length === 0) return;
  const names = new Set([...fields.map((f) => f.name.toLowerCase()), ...(state.context.tool?.name ?? '').toLowerCase().split(/[./]/)]);
  const spanOf = (m: RegExpMatchArray) => ({ value: m[0], span: { start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, text: m[0] } });
  const usable = (c: { value: string; span: Span }) => !names.has(c.value.toLowerCase()) && state.isFree(c.span) && !state.opaque.some((o) => overlaps(o, c.span));
  const found = [...state.text.matchAll(IDENTIFIER)].map(spanOf).filter(usable);
  const codes = [...state.text.matchAll(CODE)].map(spanOf).filter((c) => usable(c) && !found.some((f) => overlaps(f.span, c.span)));
  const scored = open.flatMap((field) => [
    ...found.map((c) => {
      const parts = c.value.toLowerCase().split('_').map(stem);
      const own = field.nameWords.filter((w) => !/^\d+$/.test(w) && parts.some((p) => wordMatches(w, p))).length;
      return { field, c, score: fieldScore(state, field, c.span) + own };
    }),
    // A code ("rs6034464", "2022/AL2562") is the value only of an identifier field the words beside it name.
    ...(holdsIdentifier(field) ? codes.map((c) => ({ field, c, score: fieldScore(state, field, c.span) })) : []),
  ]);
  scored.sort((a, b) => b.score - a.score || a.c.span.start - b.c.span.start);
  for (const { field, c, score } of scored) if (score > 0 && state.isOpen(field) && state.isFree(c.span)) state.set(field, c);
}

/** A street address: a house number, a few words and a street word ("123 main street", "10 Downing St"). */
const STREET_ADDRESS =
  /\b\d{1,6}[A-Za-z]?\s+(?:[A-Za-z][\w'.-]*\s+){1,4}(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|terrace|parkway|pkwy|highway|hwy|square|sq)\b\.?/gi;

/**
 * A field for an address (`address`, `street`, or one whose description asks for a "Street Address, City, …") takes the
 * street address written, as written; when its description asks for the city and more after the street, the
 * capitalised parts written after it with commas ("2020 Addison Street, Berkeley, CA, USA") too.
 */
export function fillAddress(state: Filling, fields: SchemaField[]): void {
  const formatOf = (f: SchemaField) => /\bstreet address\b([^'"]*)/i.exec(String(f.schema.description ?? ''));
  const field = fields.find((f) => state.isOpen(f) && (f.nameWords.some((w) => w === 'address' || w === 'street') || formatOf(f)));
  if (!field) return;
  const withPlace = /,\s*city\b/i.test(formatOf(field)?.[1] ?? '');
  const found = [...state.text.matchAll(STREET_ADDRESS)]
    .map((m) => {
      const place = withPlace ? (/^(?:,\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*(?:\s+\d{5})?){1,3}/.exec(state.text.slice(m.index + m[0].length))?.[0] ?? '') : '';
      const text = m[0] + place;
      return { value: text.replace(/\.$/, ''), span: { start: m.index, end: m.index + text.length, text } };
    })
    .filter((c) => state.isFree(c.span) && !state.opaque.some((o) => overlaps(o, c.span)));
  state.single(field, found);
}

/** A size written as its sides: "12x18", "24 x 36", "1920×1080", "2x3x4". */
const DIMENSIONS = /(?<![\w.])(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)(?:\s*[x×]\s*(\d+(?:\.\d+)?))?(?![\w.])/g;
const SIZED = /^(?:size|sizes|dimension|dimensions|resolution)$/;

/**
 * A field for a size (`size`, `dimensions`, `resolution`) takes the sides written as "12x18": as written for a
 * text field, as numbers for a list of numbers. Before the numbers: the sides are no amounts of their own.
 */
export function fillDimensions(state: Filling, fields: SchemaField[]): void {
  const field = fields.find((f) => state.isOpen(f) && (f.kind === 'text' || f.kind === 'number-list') && f.nameWords.some((w) => SIZED.test(w)));
  if (!field) return;
  const written = [...state.text.matchAll(DIMENSIONS)]
    .map((m) => ({ m, span: { start: m.index, end: m.index + m[0].length, text: m[0] } }))
    .filter(({ span }) => state.isFree(span) && !state.opaque.some((o) => overlaps(o, span)));
  state.single(
    field,
    written.map(({ m, span }) => ({ value: field.kind === 'text' ? m[0].replace(/\s+/g, '') : [m[1], m[2], m[3]].filter((d) => d !== undefined).map(Number), span })),
  );
}

/** first_name / last_name style fields take the parts of a person's name. */
export function fillPersonName(state: Filling, fields: SchemaField[]): void {
  const firstField = fields.find((f) => /^(?:first|given)_?name$/i.test(f.name));
  const lastField = fields.find((f) => /^(?:last|family|sur)_?name$/i.test(f.name));
  if (!firstField && !lastField) return;
  const name = extractPersonName(state.text);
  if (firstField && name.first && state.isFree(name.first)) state.set(firstField, { value: name.first.value, span: name.first });
  if (lastField && name.last && state.isFree(name.last)) state.set(lastField, { value: name.last.value, span: name.last });
}

export function fillPath(state: Filling, field: SchemaField): void {
  const wantsFolder = /^(?:folder|director)/i.test(String(field.schema.description ?? '')) || /folder|dir/i.test(field.name);
  const paths = state.paths.filter((p) => state.isFree(p));
  const preferred = paths.filter((p) => p.folder === wantsFolder || (wantsFolder && !/\.\w+$/.test(p.value)));
  const chosen = preferred.length > 0 ? preferred : paths;
  if (chosen.length > 0) {
    state.single(
      field,
      chosen.map((p) => ({ value: p.value, span: p })),
    );
    return;
  }
  const named = (state.context.images ?? []).filter((i) => i.name);
  if (named.length > 0 && IMAGE_WORDS.test(state.text)) {
    if (named.length === 1) {
      state.fill.arguments[field.name] = named[0].name;
      state.fill.evidence[field.name] = 'the attached image';
    } else
      state.ambiguous(
        field,
        named.map((i) => i.name),
      );
  }
}

const YEAR_OR_RANGE = /(?<![\w.-])((?:1[5-9]|20)\d\d)(?:\s?[-–/]\s?((?:1[5-9]|20)?\d\d))?(?![\w.])/g;

/**
 * A text field for a year or a season (`year: string`, `season`) takes the year or the range of years
 * written ("in 2022", "the 2019-2020 season"), as written; several are a list or a question.
 */
export function fillYears(state: Filling, fields: SchemaField[]): void {
  for (const field of fields) {
    const last = field.nameWords.at(-1);
    if (field.name in state.fill.arguments || (last !== 'year' && last !== 'season')) continue;
    const found = [...state.text.matchAll(YEAR_OR_RANGE)]
      .map((m) => ({ value: m[0].replace(/\s/g, ''), span: { start: m.index, end: m.index + m[0].length, text: m[0] } }))
      .filter((c) => state.isFree(c.span) && !state.opaque.some((o) => overlaps(o, c.span)));
    state.single(field, found);
  }
}

/** Words that open no value: "the command to list files", "with content that covers …". */
const NOT_A_VALUE = new Set(
  'a an the of to for is are was were be been should must will would can could may might that which who whose and or but in on at by with from as than this these'.split(' '),
);
/** Head nouns too common to cue a value unless they label it ("id: X"): "with the name …" is for the name readers. */
const NO_CUE = new Set(['name', 'type', 'kind', 'value', 'data', 'text', 'input', 'info', 'information', 'detail', 'id', 'string', 'param', 'option', 'number']);
/** Where a value said after its field's noun ends: the clause's end. */
const CLAUSE_END = /[.?!;](?=\s|$)|,\s|\s+(?:and|then|but|so)\s+|\n/i;
const MAX_NAMED_VALUE_WORDS = 12;

/**
 * "add todo with content go to sleep at 9 pm", "using the exact command shutdown /s /t 0": a required text field's own
 * noun, introduced as the means ("with", "using", "via") or followed by "called"/":", then its value to the end of the
 * clause. Only when the text says it once; never a value that opens on a function word.
 */
export function fillNamedValues(state: Filling, fields: SchemaField[]): void {
  for (const field of fields.filter((f) => f.required && state.isOpen(f))) {
    const head = field.nameWords.filter((w) => !/^\d+$/.test(w)).at(-1);
    if (!head || (head.length < 3 && head !== 'id')) continue;
    const found: { value: string; span: Span }[] = [];
    for (const [i, word] of state.words.entries()) {
      if (!wordMatches(head, stem(word.word))) continue;
      const lead = /^\s*(?::|=|called|named|number|no\.|#)?\s*/i.exec(state.text.slice(word.end))?.[0] ?? '';
      // A noun any tool could have ("id", "name") names a value only as a label ("with id: X").
      const labels = /[:=]/.test(lead);
      if (NO_CUE.has(head) && !labels) continue;
      const introduced = lead.trim() !== '' || state.words.slice(Math.max(0, i - 3), i).some((w) => ['with', 'using', 'use', 'via'].includes(w.word));
      const start = word.end + lead.length;
      const rest = state.text.slice(start);
      const value = rest.slice(0, CLAUSE_END.exec(rest)?.index ?? rest.length).trim();
      const words = value.split(/\s+/);
      const span = { start, end: start + value.length, text: value };
      if (!introduced || value === '' || words.length > MAX_NAMED_VALUE_WORDS || NOT_A_VALUE.has(words[0].toLowerCase())) continue;
      if (state.isFree(span) && !state.opaque.some((o) => overlaps(o, span))) found.push({ value, span });
    }
    if (found.length === 1) state.set(field, found[0]);
  }
}
