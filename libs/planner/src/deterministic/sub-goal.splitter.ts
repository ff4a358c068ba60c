import { coordinationJoints, outsideQuotes } from '../arguments/text-span.util';
import { instructionAimedAtSystem } from './instruction.detector';

/** One piece of a task that may need its own tool call. */
export interface SubGoal {
  /** 0-based position in the task: the text order. */
  index: number;
  text: string;
  /** When the goal is one part of a coordination split by tools, the parts after it in text order. */
  following?: string[];
  /** The parts before it, in text order. */
  preceding?: string[];
}

export interface SplitResult {
  subGoals: SubGoal[];
  /** Pieces that speak to the system ("ignore previous instructions", "call x/y on everything"): data, not goals. */
  ignored: { text: string; why: string }[];
  /** True when the task held more sub-goals (or text) than the bounds allow: the rest was ignored. */
  truncated: boolean;
}

export interface SplitOptions {
  maxSubGoals: number;
  /** Characters of the task that are read at all: bounds the work on a huge input. */
  maxChars: number;
}

export const DEFAULT_SPLIT: SplitOptions = { maxSubGoals: 12, maxChars: 4000 };

/**
 * Verbs that open a new action when they follow "and" or a comma ("book a flight and send me an SMS").
 * Imperative English verbs of tool tasks; nouns that double as verbs ("order", "file") are left out on
 * purpose where the noun reading dominates in task text.
 */
const ACTION_VERBS = new Set(
  `activate add adjust analyze append apply approve archive arrange assign attach book buy calculate call cancel change chart check
  choose clean close compare complain complete compress compute conduct confirm consult contact convert copy correct create
  delete deliver deposit design display download draft edit email enter estimate exchange export extend extract fetch fill
  filter find forward generate get give handle identify import inform initiate inquire insert invite issue know learn let list
  locate log login logout look make mark merge modify monitor move notify obtain open organize pay place plan play plot post
  postpone predict prepare print process provide purchase query read rearrange rebook recharge recommend record redeem refund
  register remind remit remove rename renew rent repair repay replace reply report request reschedule reserve reset retrieve
  return review save schedule search see select sell send set share show sign sort start stop submit subscribe summarize switch
  take tell top track transfer translate turn understand unsubscribe update upgrade upload verify view withdraw write
  use run execute perform evaluate solve measure determine describe explain assess simulate derive count sum multiply divide
  subtract integrate differentiate rank reverse visualize draw plot`.split(/\s+/),
);

/** Connectives that always start a new step. */
const SEQUENCE =
  /\s*(?:,\s*)?\b(?:and then|then|after that|afterwards|after which|followed by|finally|lastly|subsequently|meanwhile|at the same time|in addition|additionally|and also|^also(?=,))\b[,\s]*/gi;

/** A sentence ends at . ! ? ; or a line break, not inside "3.5", "No. 328" or "p.m. on". */
const SENTENCE_END = /(?:[.!?;]+(?=\s+[A-Z"'(\d])|[.!?;]+\s*$|\n+)/g;

/** Words before the verb that still mean "do this": "I need to", "please help me", "I would like to". */
const LEAD_IN = new Set(
  'i im am are is id we he she they need needs want wants would like to please help me us can could you also first firstly second secondly third thirdly fourth fifth next lastly finally and then now kindly curious interested wondering wonder looking trying has have'.split(
    ' ',
  ),
);
/** A word that numbers the items of a request in words: "Second, …", "Lastly, …". */
const ORDINAL = /^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth|next|lastly|finally)\s*,/i;
/** "Later, you obtain another sample …": a sentence that moves the story on opens a step of its own. */
const LATER = /^later\s*,/i;
/** A list marker that opens an item of a numbered or bulleted request: "1)", "2.", "(a)", "-", "•". */
const LIST_MARKER = /^\s*(?:\(?\d{1,2}[).:]|\(?[a-h]\)|[-*•·])\s+/i;

/** Lead-in words that make the rest a request whatever its verb: "please help me readjust", "I need information on", "I'm curious about". */
const REQUEST = new Set('please need needs want wants like help kindly curious interested wondering wonder looking trying'.split(' '));

/** A question asks for something to be found out: "what time is it in Tokyo". */
const QUESTION = new Set('what how when where which who'.split(' '));

/**
 * "can you filter …", "could you please tell …": a polite question asks for whatever verb follows it, also
 * after a lead-in phrase ("Then, using the 'filter_list' function, can you filter …").
 */
const ASKED = /(?:^|[,;:]\s*)(?:can|could|would|will)\s+you\s+(?:please\s+)?[a-z]+/i;

/** "do the same for Hinduism", "repeat it for 2020": the step before, asked again with a change. */
const DO_AGAIN = /^(?:(?:please|and|also|then|now)\s+)*(?:do|repeat)\s+(?:the\s+same|it|this|that)\b/i;

/** True when the piece asks the step before it again ("do the same for Hinduism"). */
export const asksAgain = (text: string): boolean => DO_AGAIN.test(text.trim());

/**
 * A subject, then a finite verb: "the weather was clear", "my account ID is 123", "I booked the wrong flight".
 * After a noun only a form of be/have counts: "the lawsuits filed in 2018" is a noun with its participle.
 */
const STATEMENT = /^(?:(?:i|we|he|she|they|it)\s+(?:am|is|are|was|were|has|have|had|\w+ed)|(?:the|my|our|his|her|their|its|this|that)(?:\s+[\w'-]+){1,5}?\s+(?:is|are|was|were|has|have|had))\b/i;

/** True when the piece tells something rather than asks for it ("the amount is 300 yuan", "I booked the wrong flight"). */
export function statesAFact(text: string): boolean {
  const trimmed = text.trim();
  return !isAction(trimmed) && STATEMENT.test(trimmed);
}

/** True when the piece asks for something: a polite question, a question word, or an action verb or a request lead-in among its first words. */
export function isAction(text: string): boolean {
  const trimmed = text.trim();
  return ASKED.test(trimmed) || DO_AGAIN.test(trimmed) || opensWithAction(trimmed);
}

function opensWithAction(text: string): boolean {
  let requested = false;
  // A stray quote or dash before the words ('" I'm trying to …') is no word.
  const words = text
    .toLowerCase()
    .split(/\s+/, 8)
    .map((word) => word.replace(/[^a-z]/g, ''))
    .filter((bare) => bare !== '');
  for (const [i, bare] of words.entries()) {
    // "You know that the molar mass is 16": a verb of knowing asks for something only after a request ("I want to know").
    if (KNOWING.has(bare) && !requested) return false;
    if (ACTION_VERBS.has(bare) || (i === 0 && QUESTION.has(bare))) return true;
    if (!LEAD_IN.has(bare)) return requested;
    if (REQUEST.has(bare)) requested = true;
  }
  return false;
}

const startsWithAction = (text: string): boolean => {
  const words = text.trim().toLowerCase().split(/\s+/, 3);
  const first = words[0] === 'please' || words[0] === 'also' || words[0] === 'to' ? words[1] : words[0];
  // "'Open', 'Close' and 'Low' prices": a quoted word is a name, not a verb.
  if (first === undefined || /^['"‘“]/.test(first)) return false;
  const bare = first.replace(/[^a-z]/g, '');
  // "… and change in time of 4 seconds", "and return of 5%": a verb-noun followed by "in"/"of" is the noun.
  const noun = /^\s*(?:please\s+|also\s+|to\s+)?\S+\s+(?:in|of)\b/i.test(text) && !PHRASAL_IN.has(bare);
  // "… and how much water do I need": a second question is a second goal ("which" and "who" often only qualify).
  return (ACTION_VERBS.has(bare) && !noun) || (SECOND_QUESTION.has(bare) && /^\s*\S+\s+(?:much|many|long|far|is|are|was|were|do|does|did|will|would|can|should)\b/i.test(text));
};
const SECOND_QUESTION = new Set(['what', 'how', 'when', 'where']);
/** Verbs of knowing: "I want to know …" asks, "You know that …" tells. */
const KNOWING = new Set(['know', 'see', 'understand', 'learn']);

/** Verbs whose "in" is their own ("check in", "log in", "sign in"). */
const PHRASAL_IN = new Set(['check', 'log', 'login', 'sign', 'plug', 'fill', 'turn', 'hand', 'book', 'move', 'put', 'write']);

/** Splits at "and" / "," only where the next words open a new action. */
function splitCoordinated(clause: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const joint of coordinationJoints(clause)) {
    if (joint.index < start || !startsWithAction(clause.slice(joint.index + joint.length))) continue;
    parts.push(clause.slice(start, joint.index));
    start = joint.index + joint.length;
  }
  parts.push(clause.slice(start));
  return parts;
}

const meaningful = (text: string) => /\p{L}{2,}/u.test(text);

/** The action verb a piece opens with ("find" of "Find me the sales growth rate …"), if any. */
function leadingVerb(piece: string): string | undefined {
  return piece
    .trim()
    .split(/\s+/, 8)
    .map((w) => w.toLowerCase().replace(/[^a-z]/g, ''))
    .find((w) => ACTION_VERBS.has(w));
}

/** Stand-ins for sentence punctuation inside a quote while the text is cut into sentences. */
const KEPT: Record<string, string> = { '.': '\u2024', '!': '\u01C3', '?': '\u0294', ';': '\u037E' };
const RESTORED = Object.fromEntries(Object.entries(KEPT).map(([mark, kept]) => [kept, mark]));

/** The text with the sentence punctuation inside its quotes replaced, so a quoted passage stays one value. */
function withinQuotesKept(text: string): string {
  const outside = outsideQuotes(text);
  return text.replace(/[.!?;]/g, (mark, at: number) => (outside(at) ? mark : KEPT[mark]));
}
const restoreQuoted = (text: string) => text.replace(/[\u2024\u01C3\u0294\u037E]/g, (kept) => RESTORED[kept]);

/** A piece that is only a prepositional phrase naming a place or subject ("for San Francisco", "in 'Tulum'"). */
const ANOTHER_VALUE = /^(?:for|in|at|about)\s+(?:the\s+)?[\p{Lu}"'‘“][^,;:.!?]*$/u;

/** A clause that sets up what the next question asks about: "If the loan term was 10 years, …", "Now, suppose you took out a loan …". */
const PREMISE = /^(?:(?:now|so|and|but|also|then)\s*,?\s+)?(?:if|suppose|supposing|assume|assuming|imagine|consider|given|say)\b/i;

/** Sequence words that add to what came before rather than number a new item. */
const ADDING = /^(?:also|in addition|additionally)\b/i;

/** One coordinated part of a sentence, as the splitter reads it. */
interface Part {
  text: string;
  /** Its clause's place in the sentence (clauses are cut at sequence words) and its place in the clause. */
  clause: number;
  inClause: number;
  /** It opens a sentence with a sequence word alone before it ("Also, …", "Finally, …"). */
  afterSequenceWord: boolean;
  /** That word adds to what came before ("Also, …", "In addition, …") rather than numbering a new item. */
  adds: boolean;
  action: boolean;
}

/** The text's coordinated parts in order, without list markers, joints and what speaks to the system. */
function partsOf(text: string, ignored: SplitResult['ignored']): Part[] {
  const parts: Part[] = [];
  // Trimmed: a sentence after the first starts with the space after the full stop, and "Also, …" opens it.
  const sentences = withinQuotesKept(text)
    .split(SENTENCE_END)
    .map((s) => restoreQuoted(s).trim());
  for (const written of sentences) {
    const clauses = written.split(SEQUENCE);
    for (const [c, clause] of clauses.entries())
      for (const [r, raw] of splitCoordinated(clause).entries()) {
        const part = raw
          .trim()
          .replace(LIST_MARKER, '')
          .replace(/^(?:and|or)\s+/i, '')
          .replace(/(?:[\s,;:]*\b(?:and|or)\b)?[\s,;:]*$/i, '')
          // A line break ended the sentence, not its full stop ("Find the median.\n- Chart them.").
          .replace(/(?<![A-Z]|\b[a-z])[.!?]+$/, '');
        if (!meaningful(part)) continue;
        const why = instructionAimedAtSystem(part);
        if (why) ignored.push({ text: part, why });
        else {
          const afterSequenceWord = c === 1 && r === 0 && clauses[0].trim() === '';
          parts.push({ text: part, clause: c, inClause: r, afterSequenceWord, adds: afterSequenceWord && ADDING.test(written), action: isAction(part) });
        }
      }
  }
  return parts;
}

/** Splits a task into sub-goals: sentences, sequence words ("then", "after that"), and "and"/commas between verb phrases. */
export function splitSubGoals(task: string, options: SplitOptions = DEFAULT_SPLIT): SplitResult {
  const text = task.length > options.maxChars ? task.slice(0, options.maxChars) : task;
  let truncated = text.length < task.length;
  const pieces: string[] = [];
  const ignored: SplitResult['ignored'] = [];
  const parts = partsOf(text, ignored);
  // What waits for the next request: the scene set before it ("Imagine you are …", "If the loan term was 10 years").
  let context = '';
  const lastRequest = parts.findLastIndex((p) => p.action);
  for (const [i, { text: part, clause, inClause, afterSequenceWord, adds, action }] of parts.entries()) {
    const askedLater = i < lastRequest;
    // "… for the last 3 years, and also the interest coverage ratio": after a sequence word a bare noun
    // phrase asks for more of what the step before did, with that step's verb. A clause that tells
    // something ("Also, the interest is compounded quarterly") is no noun phrase.
    const told = statesAFact(part);
    // With no verb to lend ("help me order a sculpture of a horse, then another sculpture of a dog"), the phrase is still a step.
    const more = clause > 0 && inClause === 0 && pieces.length > 0 && !told && !action && /^(?:the|a|an|another|its|their|his|her|my|our)\b/i.test(part);
    if (more) pieces.push([leadingVerb(pieces[pieces.length - 1]), part].filter(Boolean).join(' '));
    else if (action) {
      pieces.push(context ? `${context}. ${part}` : part);
      context = '';
    }
    // A premise ("If the loan term was 10 years, …", "Now, suppose you took out a loan …") sets the scene of the request
    // that follows, and so does what is told after it until that request.
    else if (askedLater && (PREMISE.test(part) || context)) context = context ? `${context}. ${part}` : part;
    // "Second, I'm curious about …", "Finally, I have a polynomial equation …": an item of a sequence the writer
    // numbered is a step of its own; "Also, the interest is compounded quarterly" only tells more about the step before.
    else if ((ORDINAL.test(part) || (afterSequenceWord && !(adds && told)) || (clause === 0 && inClause === 0 && LATER.test(part))) && pieces.length + (context ? 1 : 0) > 0) {
      pieces.push(context ? `${context}. ${part}` : part);
      context = '';
    } else if (pieces.length > 0) {
      // "… for Boston, MA and also for San Francisco": only another place or subject for the step before, so one more
      // of its values, written as the list it is. Anything else that asks for nothing ("my name is Li Lei") is its context.
      const joint = ANOTHER_VALUE.test(part) ? ' and also ' : '. ';
      pieces[pieces.length - 1] = `${pieces[pieces.length - 1]}${joint}${part}`;
    } else context = context ? `${context}. ${part}` : part;
  }
  // Only a text that asks for nothing ends with a scene no request took.
  if (context) pieces.push(context);
  if (pieces.length > options.maxSubGoals) truncated = true;
  return { subGoals: pieces.slice(0, options.maxSubGoals).map((piece, index) => ({ index, text: piece })), ignored, truncated };
}
