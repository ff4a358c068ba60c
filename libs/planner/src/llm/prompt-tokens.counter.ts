import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';

/**
 * Prompt tokens of a request with o200k_base (the GPT-4o family's encoding): exact for OpenAI
 * models, a close estimate for others. Counted before sending so an over-budget request is refused.
 */

let encoder: Tiktoken | undefined;
/** The ranks are ~2 MB of JS: loaded on first use, once per process. */
function o200k(): Tiktoken {
  if (!encoder) {
    // The CommonJS build exports the ranks object itself (its typings claim a default export).
    encoder = new Tiktoken(require('js-tiktoken/ranks/o200k_base') as TiktokenBPE);
  }
  return encoder;
}

/**
 * BPE merging in js-tiktoken grows with the square of a word's length (20k chars without a space
 * take over a minute), so runs longer than this are counted in slices. Slicing can only split
 * merges, so the count stays exact for ordinary text and errs high (safe for a budget) otherwise.
 */
const LONGEST_RUN = 64;

export function countTokens(text: string): number {
  const enc = o200k();
  let total = 0;
  let start = 0;
  for (const run of text.matchAll(new RegExp(`\\S{${LONGEST_RUN + 1},}`, 'g'))) {
    const runStart = run.index ?? 0;
    let cut = runStart + LONGEST_RUN;
    total += enc.encode(text.slice(start, cut)).length;
    for (; cut + LONGEST_RUN < runStart + run[0].length; cut += LONGEST_RUN) total += enc.encode(text.slice(cut, cut + LONGEST_RUN)).length;
    start = cut;
  }
  return total + enc.encode(text.slice(start)).length;
}

/** What a chat template adds around each message (role markers, separators): about this many tokens. */
const PER_MESSAGE = 4;

/**
 * Tokens of everything the model reads in a request: each message's text (not its JSON escaping),
 * the tool definitions and the response schema. An estimate for other tokenizers: the planner
 * scales it by what the endpoint reports (EndpointCapabilities).
 */
export function promptTokens(body: ChatCompletionCreateParamsNonStreaming): number {
  const { messages, tools, response_format } = body;
  let total = 0;
  for (const message of messages) {
    const { content } = message;
    const text = typeof content === 'string' ? content : (content ?? []).map((part) => ('text' in part ? part.text : JSON.stringify(part))).join('\n');
    total += PER_MESSAGE + countTokens(text);
    if ('tool_calls' in message && message.tool_calls) total += countTokens(JSON.stringify(message.tool_calls));
  }
  if (tools) total += countTokens(JSON.stringify(tools));
  if (response_format && response_format.type === 'json_schema') total += countTokens(JSON.stringify(response_format.json_schema));
  return total;
}
