import type { TaskImage } from '../plan/plan.types';

export interface ArgumentFillContext {
  /** Relative dates/times resolve against this instant. */
  referenceTime: Date;
  /** IANA zone for dates/times the text gives without one. */
  timeZone: string;
  /** Images of the task (an image/path argument may bind to one) and the text OCR read from them. */
  images?: TaskImage[];
  imageText?: string;
  /** Values already bound (e.g. from earlier steps or the session); the filler does not overwrite them. */
  given?: Record<string, unknown>;
  /**
   * The tool the arguments are for: given, its name and description let the one required text field
   * the words do not point at take the request's leftover words (a guess, reported in `guessed`).
   */
  tool?: { name: string; description?: string };
}

export interface ArgumentFill {
  arguments: Record<string, unknown>;
  /** Required fields the text did not give: each becomes part of a CLARIFY question. */
  missing: { path: string; description?: string }[];
  /** Fields the text gave more than one plausible value for (not guessed): CLARIFY asks which. */
  ambiguous: { path: string; options: unknown[] }[];
  /**
   * The text lists several values for fields that take one ("the factorial of 5, 10 and 15", "Taylor
   * Swift and Maroon 5 for 20 and 15 minutes respectively"): one call per entry, each entry's values
   * over `arguments`. Absent when the text asks for one call.
   */
  each?: Record<string, unknown>[];
  /** Which text span each value came from, for explanations; keyed like `arguments`. */
  evidence: Record<string, string>;
  /** Fields filled from the words left over rather than from words that point at them: less sure. */
  guessed?: string[];
  /** Required fields the text left open that took the default their description states: any value the text gives wins. */
  defaulted?: string[];
}

/** A stretch of the task text a value was read from. */
export interface Span {
  start: number;
  end: number;
  text: string;
}
