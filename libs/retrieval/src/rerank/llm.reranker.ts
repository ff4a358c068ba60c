import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { z } from 'zod';
import type { FusedCandidate } from '../funnel/rank.fusion';
import { measureGenAi } from '../telemetry/gen-ai.instruments';
import { keepFusedOrder, type RerankCandidate, Reranker } from './reranker.port';

export interface LlmRerankerOptions {
  /** Unset with a local server that needs no key. */
  apiKey?: string;
  /** Unset: api.openai.com; any OpenAI-compatible endpoint otherwise. */
  baseURL?: string;
  model: string;
  /** Per request, in milliseconds: a slow model must not hold a search up for long. */
  timeoutMs: number;
  /** Retries on 429/5xx and connection errors (the client's backoff). */
  maxRetries: number;
  /** Characters of each tool description shown to the model. */
  descriptionChars: number;
}

export const DEFAULT_LLM_RERANKER: Omit<LlmRerankerOptions, 'apiKey' | 'baseURL'> = { model: 'gpt-4o-mini', timeoutMs: 10_000, maxRetries: 1, descriptionChars: 300 };

const INSTRUCTIONS = [
  'You rank tools for a user request. You get the request and numbered candidate tools.',
  'Reply with JSON only: {"ranking": [numbers]}, the numbers of the tools that help with the request, most useful first.',
  'Leave out tools that do not help. A request with several parts needs one tool for each part.',
].join(' ');

/** The reply the model is asked for; candidate numbers are 1-based as shown in the prompt. */
const replySchema = z.object({ ranking: z.array(z.number().int()) });

/**
 * Reranks with a chat model through the official `openai` client (any OpenAI-compatible endpoint).
 * A reply that cannot be used (error, timeout, malformed JSON, no known candidate) keeps the fused
 * order and says why on every hit: search never fails because the reranker did.
 */
export class LlmReranker extends Reranker {
  readonly name = 'llm';
  private readonly client: OpenAI;
  private readonly options: LlmRerankerOptions;

  constructor(options: Partial<LlmRerankerOptions> = {}) {
    super();
    this.options = { ...DEFAULT_LLM_RERANKER, ...options };
    this.client = new OpenAI({
      // A local OpenAI-compatible server may need no key, but the client insists on one.
      apiKey: this.options.apiKey ?? 'unused',
      baseURL: this.options.baseURL,
      timeout: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
    });
  }

  prompt(query: string, candidates: readonly RerankCandidate[]): string {
    const lines = candidates.map(({ candidate, doc }, i) => {
      const description = (doc?.description ?? '').replace(/\s+/g, ' ').slice(0, this.options.descriptionChars);
      return `${i + 1}. ${doc?.name ?? candidate.id}${doc && doc.title !== doc.name ? ` (${doc.title})` : ''}: ${description}`;
    });
    return `Request: ${query}\n\nCandidate tools:\n${lines.join('\n')}`;
  }

  async rerank(query: string, candidates: readonly RerankCandidate[]): Promise<FusedCandidate[]> {
    if (candidates.length === 0) return [];
    let content: string | null | undefined;
    // One deadline over the request and its retries: the client's own timeout is per attempt.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    try {
      const completion = await measureGenAi({ operation: 'chat', model: this.options.model, purpose: 'rerank' }, () =>
        this.client.chat.completions.create(
          {
            model: this.options.model,
            temperature: 0,
            messages: [
              { role: 'system', content: INSTRUCTIONS },
              { role: 'user', content: this.prompt(query, candidates) },
            ],
          },
          { signal: deadline.signal },
        ),
      );
      content = completion.choices[0]?.message?.content;
    } catch (error) {
      if (deadline.signal.aborted || error instanceof APIConnectionTimeoutError) return keepFusedOrder(this.name, candidates, `no reply within ${this.options.timeoutMs} ms`);
      const status = error instanceof APIError && error.status ? ` (HTTP ${error.status})` : '';
      return keepFusedOrder(this.name, candidates, `the model endpoint failed${status}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    const ranking = parseRanking(content, candidates.length);
    if (typeof ranking === 'string') return keepFusedOrder(this.name, candidates, `unusable reply: ${ranking}`);
    const chosen = new Set(ranking);
    const order = [...ranking, ...candidates.map((_, i) => i).filter((i) => !chosen.has(i))];
    // Chosen tools score by position (1 for the first); the ones the model left out score 0, in fused order.
    return order.map((i, position) => ({
      ...candidates[i].candidate,
      rerank: { reranker: this.name, score: chosen.has(i) ? 1 - position / ranking.length : 0, rank: position + 1 },
    }));
  }
}

/** The 0-based candidate indices the model ranked, or what was wrong with its reply. */
function parseRanking(content: string | null | undefined, count: number): number[] | string {
  if (!content) return 'empty reply';
  // Models often wrap JSON in a code fence despite being asked not to.
  const json = content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return `not JSON: ${JSON.stringify(content.slice(0, 80))}`;
  }
  const parsed = replySchema.safeParse(value);
  if (!parsed.success) return 'expected {"ranking": [numbers]}';
  const indices = [...new Set(parsed.data.ranking)].filter((n) => n >= 1 && n <= count).map((n) => n - 1);
  return indices.length > 0 ? indices : 'no candidate number in the ranking';
}
