import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { APIError } from 'openai';

/**
 * How a plan reply is asked for, strictest first: `json_schema` (structured output, the schema
 * enforced by the server), `json_object` (JSON mode, the schema in the prompt, checked after), `tools`
 * (the plan as the arguments of one forced function call). Servers differ: llama.cpp's Python server
 * takes `json_object` but not `json_schema`, some Ollama models refuse tools, OpenAI takes all three.
 */
export const REPLY_FORMATS = ['json_schema', 'json_object', 'tools'] as const;
export type ReplyFormat = (typeof REPLY_FORMATS)[number];

/** A request parameter the endpoint rejected by name: it is left out of later requests. */
export type OptionalParameter = 'max_tokens';

export type Refusal = { kind: 'format'; format: ReplyFormat; message: string } | { kind: 'parameter'; parameter: OptionalParameter; message: string };

/** Statuses with which servers reject a request shape: OpenAI 400, FastAPI 422, llama-cpp-python's 500 for a validation error, 501. */
const SHAPE_STATUSES = new Set([400, 422, 500, 501]);
const NOT_SUPPORTED =
  /not\s+(be\s+)?support|unsupported|not\s+(allowed|permitted|available|implemented)|invalid|input should be|unknown|unrecognized|must be|not one of|does not support|cannot be used/i;
const MENTIONS_FORMAT = /response_format|json_schema|json_object|structured[\s_-]?output|guided_json|grammar/i;
const MENTIONS_TOOLS = /\btools?\b|tool_choice|function[\s_-]?call/i;
const MENTIONS_MAX_TOKENS = /['"`]?max_tokens['"`]?/;

/**
 * Whether a failed request was the endpoint refusing a feature it lacks (rather than an outage),
 * and which one. Only an error that names the feature counts: a bare 400 or 500 stays an error.
 */
export function refusalOf(error: unknown, format: ReplyFormat, sentMaxTokens: boolean): Refusal | null {
  if (!(error instanceof APIError) || error.status === undefined || !SHAPE_STATUSES.has(error.status)) return null;
  const message = error.message;
  if (!NOT_SUPPORTED.test(message)) return null;
  if (sentMaxTokens && MENTIONS_MAX_TOKENS.test(message) && !/max_completion_tokens.*not/i.test(message)) return { kind: 'parameter', parameter: 'max_tokens', message };
  const mentions = format === 'tools' ? MENTIONS_TOOLS : MENTIONS_FORMAT;
  return mentions.test(message) ? { kind: 'format', format, message } : null;
}

/**
 * What one endpoint (base URL and model) accepted and refused, learned from its answers and kept
 * for the planner's lifetime, so only the first request pays for a format the server lacks.
 */
export class EndpointCapabilities {
  private readonly refused = new Map<ReplyFormat, string>();
  private readonly accepted = new Set<ReplyFormat>();
  private readonly dropped = new Set<OptionalParameter>();
  /** The endpoint's prompt tokens per token of our estimate, from the usage it reports. */
  private tokenRatio = 1;
  private calibratedOnce = false;

  /** `pinned`: the operator's TOOLGATE_LLM_REPLY_FORMAT; otherwise every format is tried in order. */
  constructor(private readonly pinned?: ReplyFormat) {}

  /** The formats to try for a reply, in order, among `wanted`; `[]` when the endpoint refused them all. */
  formats(wanted: readonly ReplyFormat[] = REPLY_FORMATS): ReplyFormat[] {
    const allowed = this.pinned ? wanted.filter((format) => format === this.pinned) : wanted;
    return allowed.filter((format) => !this.refused.has(format));
  }

  /** True until the endpoint has answered a request in this format: such a request is sent without client retries. */
  isProbe(format: ReplyFormat): boolean {
    return !this.accepted.has(format);
  }

  accept(format: ReplyFormat): void {
    this.accepted.add(format);
  }

  refuse(refusal: Refusal): void {
    if (refusal.kind === 'parameter') this.dropped.add(refusal.parameter);
    else this.refused.set(refusal.format, refusal.message);
  }

  sends(parameter: OptionalParameter): boolean {
    return !this.dropped.has(parameter);
  }

  /** The typed error once no format of `wanted` is left: each refusal in the server's words. */
  noFormatLeft(endpoint: string, wanted: readonly ReplyFormat[] = REPLY_FORMATS): ToolgateError {
    const tried = (this.pinned ? [this.pinned] : wanted).filter((format) => this.refused.has(format));
    const hint = this.pinned
      ? `TOOLGATE_LLM_REPLY_FORMAT=${this.pinned} is refused; set it to auto to let Toolgate find a format this server takes`
      : 'it takes none of the reply formats Toolgate can use';
    return new ToolgateError(
      ErrorCode.INVALID_CONFIG,
      `the LLM endpoint ${endpoint} refused the request format: ${hint}`,
      tried.map((format) => ({ path: 'TOOLGATE_LLM_REPLY_FORMAT', message: `${format}: ${this.refused.get(format)}` })),
    );
  }

  /** Our estimate scaled to the endpoint's own count (its tokenizer and chat template). */
  calibrated(estimate: number): number {
    return Math.ceil(estimate * this.tokenRatio);
  }

  /** Learns the ratio from a reply's usage; one reply is enough, later ones smooth it. */
  observePromptTokens(estimate: number, reported: number | undefined): void {
    if (!reported || reported <= 0 || estimate <= 0) return;
    const ratio = Math.min(4, Math.max(0.25, reported / estimate));
    this.tokenRatio = this.calibratedOnce ? (this.tokenRatio + ratio) / 2 : ratio;
    this.calibratedOnce = true;
  }
}
