import { tokenize } from '@toolgate/retrieval';
import { allowedWords } from '../arguments/schema.fields';
import { coordinationJoints, nameWords, outsideQuotes, wordsRelated as similar } from '../arguments/text-span.util';
import type { PlanningCandidate } from '../plan/plan.types';

/** Words that say how a tool works or that it is one, not what it works on. */
const GENERIC = new Set(
  `get set calculate calc compute find search lookup look fetch retrieve determine check list show display make create generate estimate
  predict analyze analyse evaluate perform run do tool api function service info information data detail details value values result
  results total number num given based specific using use provide provides return returns query request new all by of for from in on
  with and or to the this that its their simple basic advanced general main`.split(/\s+/),
);
/** Share of the description's first sentence the text must name when the tool's name shares nothing with it. */
const DESCRIPTION_COVERAGE = 0.25;

const significant = (words: string[]) => [...new Set(words.filter((w) => w.length > 2 && !GENERIC.has(w) && !/^\d+$/.test(w)))];

/** Nouns that say how much or which, not what: "the humidity level" asks for humidity. */
const MEASURES = new Set('level amount quantity number value rate information info detail data type list result name kind category current latest new best top most average total whether'.split(' '));
/** "What is the X of …", "Calculate the X …", "Find the X for …": X is what the request asks for. */
const ASKED_FOR =
  /^\s*(?:(?:can|could|would) you\s+|please\s+|i (?:want|need|would like) to\s+|help me\s+)?(?:what(?:'s| is| are| was| were| will be| would be)|calculate|compute|find(?: out)?|determine|get|give me|tell me|show me|estimate|predict|identify|retrieve|fetch|provide)\s+(?:me\s+)?(?:the\s+|a\s+|an\s+)?((?:[\w'-]+\s+){0,3}?[\w'-]+?)(?=\s+(?:of|for|in|on|at|to|from|with|between|given|if|that|when|by|under|after|before|within|using|based|will|would|can|does|do|is|are)\b|\s*[?.,]|\s*$)/i;

/** The words of a tool's name that say what it is about; a name made only of such words as "evaluate" is named by them. */
function aboutWords(name: string): string[] {
  const words = tokenize(name);
  const about = significant(words);
  return about.length > 0 ? about : words.filter((w) => w.length > 2);
}

/** What the request asks for, when it says so in the usual ways; nothing when it does not. */
function askedFor(text: string): string[] {
  const m = ASKED_FOR.exec(text);
  return m ? significant(tokenize(m[1])).filter((w) => !MEASURES.has(w)) : [];
}

/**
 * Whether the text names what the tool works on: a word of the tool's name ("triangle" for
 * area_triangle), one of its tags as a whole, or a quarter of what its description's first sentence is about. A tool the text
 * never names is not offered for it, however close the wording ("the area of a triangle" is not a job
 * for determine_body_mass_index, though both "calculate" from a "height"); nor is one that never speaks
 * of the thing the request asks for, unless it gives everything about its subject, or the wording fits
 * it closely (`closeFit`) and the text says its whole name.
 */
export function namesTheTool(text: string, candidate: PlanningCandidate, closeFit = false): boolean {
  const words = tokenize(text);
  const hit = (w: string) => words.some((t) => similar(t, w));
  // A close fit still answers what was asked only when the text says everything the tool's name says
  // ("the root of a quadratic equation" to solve.quadratic_equation; not "the acceleration" to
  // calculate_maximum_height), or when the tool gives everything about its subject ("details of a concert").
  const parts = candidate.id.split(/[/.]/);
  const local = parts.pop() ?? candidate.id;
  const says = (name: string) => name !== '' && aboutWords(name).every(hit);
  // The name's own words, or its namespace's ("records in a database" to database.query).
  const wholeName = closeFit && (says(local) || says(parts.join(' ')));
  if (!wholeName && asksForSomethingElse(text, candidate)) return false;
  const name = aboutWords(`${local} ${candidate.descriptor.title ?? ''}`);
  // A tool whose own name is one word ("calculator/evaluate") is named by that word, however common.
  if (name.some(hit) || (tokenize(local).length === 1 && hit(tokenize(local)[0]))) return true;
  // The words its author tagged it with name it too, each tag as a whole ("calculate"; "date difference", not "date" alone).
  if ((candidate.descriptor.tags ?? []).some((tag) => tokenize(tag).length > 0 && tokenize(tag).every(hit))) return true;
  const about = significant(tokenize((candidate.descriptor.description ?? '').split(/\.\s/)[0]));
  return about.length > 0 && about.filter(hit).length / about.length >= DESCRIPTION_COVERAGE;
}

/**
 * The request says what it asks for ("What is the acceleration …") and the tool never speaks of it, or names
 * another kind of it ("the freezing point" to calculate_boiling_point); a tool that gives everything about its
 * subject ("details of a concert") answers whatever is asked about that subject.
 */
export function asksForSomethingElse(text: string, candidate: PlanningCandidate): boolean {
  const asked = askedFor(text);
  if (asked.length === 0 || givesEverythingAbout(candidate)) return false;
  const d = candidate.descriptor;
  const local = candidate.id.split(/[/.]/).pop() ?? candidate.id;
  const properties = (d.inputSchema?.properties ?? {}) as Record<string, { enum?: unknown }>;
  // A field's allowed values are things the tool speaks of: "Reggae tracks" for a music tool whose genre takes Reggae.
  const allowed = Object.values(properties).flatMap(allowedWords);
  const toolWords = tokenize(`${candidate.id} ${d.title ?? ''} ${d.description ?? ''} ${Object.keys(properties).join(' ')} ${allowed.join(' ')}`);
  if (!asked.some((w) => toolWords.some((t) => similar(t, w)))) return true;
  // Only a question for a quantity or a thing ("What is the freezing point …"): "Get me two tickets" asks for an action.
  return /^\s*what\b/i.test(text) && namesAnotherKind(asked, local, toolWords);
}

/**
 * "the freezing point" to calculate_boiling_point: the tool's name qualifies the very noun asked for
 * with another word, and the request's own qualifier appears nowhere in the tool's text.
 */
function namesAnotherKind(asked: string[], local: string, toolWords: string[]): boolean {
  if (asked.length < 2) return false;
  const head = asked[asked.length - 1];
  const qualifier = asked[asked.length - 2];
  const name = tokenize(local);
  const at = name.findIndex((w) => similar(w, head));
  if (at <= 0) return false;
  const theirs = name[at - 1];
  return !GENERIC.has(theirs) && !similar(theirs, qualifier) && !toolWords.some((t) => similar(t, qualifier));
}

/** Whether the text says every word of the tool's own name ("holy books" for search_holy_books; not "electricity" alone for calculate_electric_current). */
export function saysWholeName(text: string, candidate: PlanningCandidate): boolean {
  const words = tokenize(text);
  const name = aboutWords(candidate.id.split(/[/.]/).pop() ?? candidate.id);
  return name.length > 0 && name.every((w) => words.some((t) => similar(t, w)));
}

/** A tool whose name or first sentence promises all about its subject: details, information, statistics, dimensions. */
const EVERYTHING = /\b(?:details?|information|info|statistics|stats|profile|overview|summary|dimensions|specifications|specs|properties|attributes)\b/i;
function givesEverythingAbout(candidate: PlanningCandidate): boolean {
  const d = candidate.descriptor;
  return EVERYTHING.test(`${candidate.id.replace(/[._/]/g, ' ')} ${d.title ?? ''} ${(d.description ?? '').split(/\.\s/)[0]}`);
}

/** Whether a word of the tool's own name is in the text ("gcd" for math.gcd, "integral" for integral). */
export function namesByName(text: string, candidate: PlanningCandidate): boolean {
  const words = tokenize(text);
  const local = candidate.id.split(/[/.]/).pop() ?? candidate.id;
  return aboutWords(local).some((w) => words.some((t) => similar(t, w)));
}

/** The parts of a sentence joined by ", and", "and", "as well as" or a comma, with where each is; `sentence` when a part is a whole sentence. */
export function coordinatedParts(text: string): { text: string; start: number; end: number; sentence: boolean }[] {
  const parts: { text: string; start: number; end: number; sentence: boolean }[] = [];
  let start = 0;
  let afterSentence = true;
  // A sentence the splitter kept with the next one ("Invest $2000 in Google. withdraw $1000 …": its verb
  // is not one the splitter knows) is a part too.
  const outside = outsideQuotes(text);
  const sentenceEnds = [...text.matchAll(/[.;]\s+/g)].map((m) => ({ index: m.index ?? 0, length: m[0].length })).filter((end) => outside(end.index));
  const joints = [...coordinationJoints(text), ...sentenceEnds].sort((a, b) => a.index - b.index).filter((j, i, all) => i === 0 || j.index >= all[i - 1].index + all[i - 1].length);
  for (const joint of joints) {
    const endsSentence = sentenceEnds.includes(joint);
    parts.push({ text: text.slice(start, joint.index), start, end: joint.index, sentence: afterSentence && endsSentence });
    start = joint.index + joint.length;
    afterSentence = endsSentence;
  }
  parts.push({ text: text.slice(start), start, end: text.length, sentence: afterSentence });
  return parts.filter((p) => p.text.trim() !== '');
}

/** Verbs tool names open on: what the tool does to what it names. */
const ACTIONS = new Set(
  `get set list find search lookup look play make request send create add delete remove update book reserve buy cancel check start stop
  open close restore retrieve fetch query show view display schedule reschedule order pay transfer upload download share edit rename move
  copy read write post submit register login logout subscribe unsubscribe enable disable install run execute stream rent sell`.split(/\s+/),
);

/**
 * Whether the text says the action a tool's name opens on ("play" for Music_3_PlayMedia, "look up" for LookupMusic);
 * undefined when the name opens on no known action.
 */
export function saysAction(text: string, candidate: PlanningCandidate): boolean | undefined {
  const local = candidate.id.split(/[/.]/).pop() ?? candidate.id;
  const action = tokenize(local).find((w) => ACTIONS.has(w));
  if (!action) return undefined;
  const words = tokenize(text);
  // "Lookup" is written "look up"; a verb is said in any of its forms ("playing", "booked").
  return words.some((t) => similar(t, action) || (action === 'lookup' && similar(t, 'look')));
}

/** How far from a value its field's name may stand and still name it ("the ID 7890", "'AIR_CLEAN' mode", "using the command dir C:\"). */
const NAME_REACH_BEFORE = 24;
const NAME_REACH_AFTER = 12;

/**
 * Whether the text says a value right beside its field's own name: "using the taskkill command" for `command`,
 * "the user with the ID 7890" for `user_id`. A name made only of words any tool could have ("value", "data") says nothing.
 */
export function saidAtItsName(text: string, field: string, value: string | undefined): boolean {
  const words = nameWords(field);
  const name = significant(words);
  if (name.length === 0 || !value) return false;
  const at = text.toLowerCase().indexOf(value.toLowerCase());
  if (at < 0) return false;
  const near = tokenize(`${text.slice(Math.max(0, at - NAME_REACH_BEFORE), at)} ${text.slice(at + value.length, at + value.length + NAME_REACH_AFTER)}`);
  // The name's last word stands beside the value ("ID" of user_id), the rest anywhere in the text ("the user with the ID 7890").
  const said = tokenize(text);
  const last = words.at(-1) ?? '';
  return near.some((w) => similar(w, last)) && name.every((w) => said.some((t) => similar(t, w)));
}
