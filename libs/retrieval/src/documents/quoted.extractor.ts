import { splitIdentifiers } from './text.tokenizer';

/** A quoted passage: where it is in the text (quotes included) and what stands between the quotes. */
export interface QuotedMention {
  start: number;
  end: number;
  /** The passage with its quotes. */
  text: string;
  /** The text between the quotes. */
  value: string;
}

// A single quote opens only after a non-word character and closes only before one, so the apostrophes
// of "don't" and "it's" never pair up, and one between letters stays inside a quote ('Let's meet').
const QUOTED = /"([^"\n]+)"|“([^”]+)”|(?<![\w])'((?:[^'\n]|(?<=\w)'(?=\w))+)'(?![\w])|‘([^’]+)’|`([^`\n]+)`/g;

export function extractQuoted(text: string): QuotedMention[] {
  return [...text.matchAll(QUOTED)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    text: m[0],
    value: m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5],
  }));
}

/** "getWeather", "get_weather", "weather/get-weather" → "get weather", "weather get weather": how a quote naming a tool is recognised. */
export function toolNameKey(name: string): string {
  return splitIdentifiers(name)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
}

/** Words that introduce a value the caller supplies: a name ("a project named 'X'") or a text ("write 'X'", "change its content to 'X'"). */
const INTRODUCES_A_VALUE = /\b(?:named|called|titled|entitled|content|contents|text|write|writes|append|add|saying|stating|reads|title|description|subject|topic|message|note|line|to|as)\s*[:,]?\s*$/i;

const LOOK_BACK = 32;
const LIST_JOINT = /^\s*(?:,|,?\s*(?:and|or|&))\s*$/i;

/**
 * The request without the quoted values it introduces as a name or a text to write ("create a project
 * named 'Annual Market Analysis'", "change its content to 'Meeting at 10 AM'"): what a tool is asked to do
 * lies around them, and their words would match a market or a meeting tool. A quote that names a tool in
 * `toolNames` (keys from `toolNameKey`) stays, and so does any other quote ('a man wearing a red dress' is
 * what to draw). The word that introduces a value stays too, so the request never ends up empty.
 */
export function withoutQuotedValues(text: string, toolNames: ReadonlySet<string> = new Set()): string {
  let kept = '';
  let from = 0;
  for (const quote of extractQuoted(text)) {
    const before = text.slice(from, quote.start);
    // "named 'alpha', 'beta' and 'gamma'": the values listed after one that was dropped go with it.
    const listed = from > 0 && LIST_JOINT.test(before);
    // The introducing word sits just before the quote: a bounded look back keeps a text of many quotes linear.
    const introduced = INTRODUCES_A_VALUE.test(text.slice(Math.max(from, quote.start - LOOK_BACK), quote.start));
    if (!(listed || introduced) || toolNames.has(toolNameKey(quote.value))) continue;
    if (!listed) kept += `${before} `;
    from = quote.end;
  }
  return from === 0 ? text : `${kept}${text.slice(from)}`.replace(/\s+/g, ' ').trim();
}
