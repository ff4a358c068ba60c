import type { Decision, ToolCall } from '../plan/plan.types';

/** One answered task of a session: what was asked and which calls were proposed. */
export interface SessionTurn {
  text: string;
  decision: Decision;
  calls: Pick<ToolCall, 'tool' | 'arguments'>[];
  /** ISO instant. */
  at: string;
}

/** A conversation's memory, newest turn last; stored by the registry as opaque JSON. */
export interface SessionState {
  version: 1;
  turns: SessionTurn[];
}

/** Turns kept per session: enough for follow-ups, small enough to stay cheap to load on every task. */
export const SESSION_TURNS = 8;
const TEXT_LIMIT = 500;
const ARGUMENTS_LIMIT = 2_000;

export const emptySession = (): SessionState => ({ version: 1, turns: [] });

/** Reads stored state defensively: anything unexpected (an older shape, a hand edit) starts afresh. */
export function sessionFrom(stored: unknown): SessionState {
  const state = stored as Partial<SessionState> | null;
  return state?.version === 1 && Array.isArray(state.turns) ? { version: 1, turns: state.turns } : emptySession();
}

/** Appends a turn, keeping the newest turns and dropping arguments too large to be worth remembering. */
export function recordTurn(state: SessionState, turn: SessionTurn): SessionState {
  const bounded: SessionTurn = {
    ...turn,
    text: turn.text.slice(0, TEXT_LIMIT),
    calls: turn.calls.map((call) => ({ tool: call.tool, arguments: JSON.stringify(call.arguments).length <= ARGUMENTS_LIMIT ? call.arguments : {} })),
  };
  return { version: 1, turns: [...state.turns, bounded].slice(-SESSION_TURNS) };
}

/** "and in Shanghai?", "what about EUR", "same for tomorrow", "now in km": elliptical follow-ups. */
const FOLLOW_UP_OPENERS = /^(and|but|also|now|then|ok(ay)?,? and|what about|how about|same( thing)? (for|with|in|but)|instead|in|for|to|with)\b/i;
const FOLLOW_UP_MAX_WORDS = 8;

/**
 * The previous turn's calls when the text reads as a follow-up of it (short and opening like an
 * ellipsis), else null. The caller re-checks that each tool is still a candidate for this principal.
 */
export function followUpOf(text: string, state: SessionState): SessionTurn | null {
  const trimmed = text.trim();
  const words = trimmed.split(/\s+/).filter(Boolean).length;
  if (words === 0 || words > FOLLOW_UP_MAX_WORDS || !FOLLOW_UP_OPENERS.test(trimmed)) return null;
  const previous = [...state.turns].reverse().find((turn) => turn.decision === 'USE_TOOLS' && turn.calls.length > 0);
  return previous ?? null;
}
