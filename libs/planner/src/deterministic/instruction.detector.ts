/**
 * Text in a task that speaks to the system instead of asking for work: it tries to override the
 * instructions, give the assistant a new role, reach its prompt, or make it run a tool by name over
 * everything. Such text is data, never a goal. Conservative on purpose: each pattern needs a phrase
 * that ordinary tasks do not use ("ignore the first row" or "call Li Lei" never match).
 */
const PATTERNS: { kind: string; pattern: RegExp }[] = [
  {
    kind: 'overrides earlier instructions',
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass|skip)\b(?:\s+(?:all|any|every|of|the|your|my|these|those))*\s+(?:previous|prior|above|earlier|preceding|original|system|safety|your)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|constraints|policies)\b/i,
  },
  {
    kind: 'gives the assistant a new role',
    pattern: /\b(?:you are now|from now on,? you (?:are|will be)|pretend (?:that )?you are|act as (?:an? |the )?(?:admin|administrator|root|superuser|system|developer))\b/i,
  },
  { kind: 'addresses the system prompt', pattern: /\b(?:system prompt|developer mode|jailbreak)\b/i },
  {
    kind: 'invokes a tool by name over everything',
    pattern:
      /\b(?:call|invoke|execute|run|trigger)\s+(?:the\s+)?(?:tool\s+)?[`'"]?(?:[a-z][\w-]*\/[a-z][\w-]*|[a-z]+(?:_[a-z0-9]+)+)\b[`'"]?.{0,40}?\b(?:on|for|against|over)\s+(?:everything|every\s+\w+|all(?:\s+\w+)?)\b/i,
  },
];

/** Why the text reads as an instruction aimed at the system, or null for an ordinary piece of a task. */
export function instructionAimedAtSystem(text: string): string | null {
  for (const { kind, pattern } of PATTERNS) if (pattern.test(text)) return kind;
  return null;
}
