/** Why a descriptor text is not fit to be shown to a model. */
export enum IntegrityRule {
  /** U+200B–U+200F, U+2060–U+2064, U+FEFF outside the joiner uses below. */
  ZERO_WIDTH = 'hidden-zero-width',
  /** U+202A–U+202E, U+2066–U+2069: can make text read differently than it is stored. */
  BIDI_CONTROL = 'hidden-bidi-control',
  /** U+E0000–U+E007F outside an emoji flag tag sequence: ASCII smuggled invisibly. */
  TAG_CHARACTER = 'hidden-tag-character',
  /** Any other format character (Unicode category Cf), e.g. a soft hyphen or U+180E. */
  FORMAT_CHARACTER = 'hidden-format-character',
  /** Private-use code points (Co): no agreed meaning, rendered as nothing or a box. */
  PRIVATE_USE = 'private-use-character',
  /** C0/C1 controls other than tab, line feed and carriage return (terminal escapes, NUL, ...). */
  CONTROL_CHARACTER = 'control-character',
  /** Two or more variation selectors in a row: a carrier for invisible bytes. */
  VARIATION_SELECTOR_RUN = 'variation-selector-run',
  IGNORE_INSTRUCTIONS = 'ignore-instructions',
  DISREGARD_INSTRUCTIONS = 'disregard-instructions',
  FORCED_TOOL_CALL = 'forced-tool-call',
  SYSTEM_PROMPT = 'system-prompt',
  CONCEAL_FROM_USER = 'conceal-from-user',
  CHAT_TEMPLATE_TOKEN = 'chat-template-token',
  INSTRUCTION_HEADER = 'instruction-header',
  ROLE_OVERRIDE = 'role-override',
  EXFILTRATION = 'exfiltration',
}

/**
 * One reason a descriptor was quarantined. `path` is a JSON pointer into the descriptor; the message
 * names code points or the kind of instruction, never quoting the offending text (it is meant for admins,
 * and must not carry the injection further).
 */
export interface IntegrityFinding {
  path: string;
  rule: IntegrityRule;
  message: string;
}
