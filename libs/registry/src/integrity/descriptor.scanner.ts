import { type IntegrityFinding, IntegrityRule } from './integrity.types';

/**
 * Invisible characters that legitimate text needs, removed before the hidden-character rules run:
 * - U+1F3F4 followed by 2–7 tag letters/digits and the cancel tag: a subdivision flag (🏴 England).
 * - ZWJ between two pictographs (optionally with VS16 or a skin tone): an emoji ZWJ sequence (👩‍💻).
 * - One ZWNJ/ZWJ between two letters or marks of a non-Latin script, or after a non-Latin letter and
 *   a combining mark (virama + ZWJ ends a Malayalam chillu): Persian, Indic, ... spelling needs them. Runs of joiners, and joiners inside Latin words, stay findings: that is where
 *   zero-width smuggling hides bits.
 */
const FLAG_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,7}\u{E007F}/gu;
const EMOJI_ZWJ = /(\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200D(?=\p{Extended_Pictographic})/gu;
const SCRIPT_JOINER = /((?!\p{Script=Latin})[\p{L}\p{M}])[\u200C\u200D](?=(?!\p{Script=Latin})[\p{L}\p{M}])/gu;
const JOINER_AFTER_MARK = /((?!\p{Script=Latin})\p{L}\p{Mn})[\u200C\u200D]/gu;

const isZeroWidth = (cp: number) => (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff;
const isBidiControl = (cp: number) => (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
const isVariationSelector = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
const FORMAT = /\p{Cf}/u;
const PRIVATE_USE = /\p{Co}/u;
const CONTROL = /[^\P{Cc}\t\n\r]/u;

function hiddenRule(char: string, cp: number, previous: number | undefined): IntegrityRule | null {
  if (isZeroWidth(cp)) return IntegrityRule.ZERO_WIDTH;
  if (isBidiControl(cp)) return IntegrityRule.BIDI_CONTROL;
  if (isTag(cp)) return IntegrityRule.TAG_CHARACTER;
  if (FORMAT.test(char)) return IntegrityRule.FORMAT_CHARACTER;
  if (PRIVATE_USE.test(char)) return IntegrityRule.PRIVATE_USE;
  if (CONTROL.test(char)) return IntegrityRule.CONTROL_CHARACTER;
  if (isVariationSelector(cp) && previous !== undefined && isVariationSelector(previous)) return IntegrityRule.VARIATION_SELECTOR_RUN;
  return null;
}

const HIDDEN_MESSAGES: Partial<Record<IntegrityRule, string>> = {
  [IntegrityRule.ZERO_WIDTH]: 'zero-width characters',
  [IntegrityRule.BIDI_CONTROL]: 'bidirectional override characters',
  [IntegrityRule.TAG_CHARACTER]: 'Unicode tag characters (invisible ASCII)',
  [IntegrityRule.FORMAT_CHARACTER]: 'invisible format characters',
  [IntegrityRule.PRIVATE_USE]: 'private-use characters',
  [IntegrityRule.CONTROL_CHARACTER]: 'control characters',
  [IntegrityRule.VARIATION_SELECTOR_RUN]: 'a run of variation selectors',
};

const codePoint = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** Hidden-character findings of one text: per rule, which code points and how often. */
function hiddenCharacters(text: string): Array<{ rule: IntegrityRule; message: string }> {
  const stripped = text.replace(FLAG_TAG_SEQUENCE, '\u{1F3F4}').replace(EMOJI_ZWJ, '$1').replace(SCRIPT_JOINER, '$1').replace(JOINER_AFTER_MARK, '$1');
  const byRule = new Map<IntegrityRule, Map<number, number>>();
  let previous: number | undefined;
  for (const char of stripped) {
    const cp = char.codePointAt(0) as number;
    const rule = hiddenRule(char, cp, previous);
    previous = cp;
    if (!rule) continue;
    const counts = byRule.get(rule) ?? new Map<number, number>();
    counts.set(cp, (counts.get(cp) ?? 0) + 1);
    byRule.set(rule, counts);
  }
  return [...byRule].map(([rule, counts]) => {
    const listed = [...counts].slice(0, 5).map(([cp, n]) => `${codePoint(cp)} ×${n}`);
    const more = counts.size > 5 ? `, and ${counts.size - 5} more` : '';
    return { rule, message: `${HIDDEN_MESSAGES[rule]}: ${listed.join(', ')}${more}` };
  });
}

const QUALIFIER = '(?:all|any|every|the|your|my|these|those|of|previous|prior|above|earlier|preceding|former|other|system|existing|original|safety)';
const DIRECTIVES = '(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails)';
const SENSITIVE =
  "(?:conversation|chat history|message history|messages|system prompt|credentials?|passwords?|secrets?|api ?keys?|access tokens?|tokens|cookies?|ssh keys?|private keys?|env(?:ironment)? variables?|personal data|user data|the user's \\w+)";

/**
 * Text addressed to a model rather than describing a tool. Matched on NFKC-folded, lower-cased text
 * with invisible characters removed, so full-width letters or a zero-width space inside a word do
 * not dodge them. Each pattern names the instruction, not a topic: a tool may talk about prompts.
 */
const INSTRUCTION_PATTERNS: Array<{ rule: IntegrityRule; pattern: RegExp; message: string }> = [
  {
    rule: IntegrityRule.IGNORE_INSTRUCTIONS,
    pattern: new RegExp(`\\b(?:ignore|forget|override|bypass)\\s+(?:${QUALIFIER}\\s+){1,4}${DIRECTIVES}`),
    message: 'asks a model to ignore its instructions',
  },
  {
    rule: IntegrityRule.DISREGARD_INSTRUCTIONS,
    pattern: new RegExp(`\\bdisregard\\s+(?:[^\\s.]+\\s+){0,3}?(?:${DIRECTIVES}|polic(?:y|ies)|the user|previous|prior|above|earlier|everything)\\b`),
    message: 'asks a model to disregard instructions',
  },
  {
    rule: IntegrityRule.FORCED_TOOL_CALL,
    pattern: /\byou\s+(?:must|are required to|have to)\s+(?:always|now|first|immediately|also|then)\s+(?:call|invoke|use|run|execute|trigger)\b/,
    message: 'orders a model to call a tool',
  },
  {
    rule: IntegrityRule.SYSTEM_PROMPT,
    pattern:
      /\b(?:reveal|print|show|repeat|output|return|leak|disclose|include|send|share|read|dump|override|replace|ignore)\s+(?:\S+\s+){0,3}?(?:system|developer)\s+(?:prompt|message|instructions)\b/,
    message: "targets a model's system prompt",
  },
  {
    rule: IntegrityRule.CONCEAL_FROM_USER,
    pattern:
      /\b(?:(?:do\s+not|don't|dont|never)\s+(?:tell|inform|mention|reveal|show|disclose|notify|alert)\s+(?:(?:this|it|anything)\s+)?(?:to\s+)?(?:the\s+)?users?|without\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?users?)\b/,
    message: 'asks a model to hide something from the user',
  },
  {
    rule: IntegrityRule.CHAT_TEMPLATE_TOKEN,
    pattern: /<\|[a-z_ ]{2,32}\|>|\[\/?inst\]|<<\/?sys>>/,
    message: 'contains a chat-template control token',
  },
  {
    rule: IntegrityRule.INSTRUCTION_HEADER,
    pattern: /(?:^|\n)[ \t]*#{1,6}[ \t]*(?:(?:new|system|important|additional)[ \t]+)?(?:instructions?|system|assistant)\b|<\/?(?:important|instructions?|system)>/,
    message: 'contains an instruction header or tag aimed at a model',
  },
  {
    rule: IntegrityRule.ROLE_OVERRIDE,
    pattern: /\byou\s+are\s+now\s+(?:a|an|the|in|my|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must)\b/,
    message: "tries to change a model's role",
  },
  {
    rule: IntegrityRule.EXFILTRATION,
    pattern: new RegExp(`\\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|submit)\\b[^\\n]{0,120}?\\b${SENSITIVE}[^\\n]{0,120}?\\b(?:to|at|via|into)\\s+(?:https?|ftp|wss?)://`),
    message: 'asks for data to be sent to an address',
  },
];

const INVISIBLE = /\p{Cf}|[\u{FE00}-\u{FE0F}]|[\u{E0100}-\u{E01EF}]/gu;

function normalizeForInstructions(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/[’‘]/g, "'")
    .replace(/[ \t_]+/g, ' ')
    .toLowerCase();
}

/** Every finding in one piece of text (a description, a tag, a property name, ...). */
export function scanText(text: string): Array<{ rule: IntegrityRule; message: string }> {
  const findings = hiddenCharacters(text);
  const normalized = normalizeForInstructions(text);
  for (const { rule, pattern, message } of INSTRUCTION_PATTERNS) {
    if (pattern.test(normalized)) findings.push({ rule, message });
  }
  return findings;
}

const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Scans every string and property name of a descriptor (title, description, tags, examples, every
 * schema annotation, ...): all of it can reach a model's context. Returns one finding per field and rule.
 */
export function scanDescriptor(descriptor: unknown): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      for (const f of scanText(value)) findings.push({ path, ...f });
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, `${path}/${i}`);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = `${path}/${pointerToken(key)}`;
        for (const f of scanText(key)) findings.push({ path: childPath, rule: f.rule, message: `property name: ${f.message}` });
        visit(child, childPath);
      }
    }
  };
  visit(descriptor, '');
  return findings;
}
