import { Counter, Histogram } from 'prom-client';

/**
 * The OpenTelemetry GenAI client metrics (`gen_ai.client.operation.duration`,
 * `gen_ai.client.token.usage`) in their Prometheus form, for every call Toolgate makes to a model
 * endpoint: planning, image description, reranking and embeddings. Buckets are the ones the
 * conventions advise.
 */
const operationSeconds = new Histogram({
  name: 'gen_ai_client_operation_duration_seconds',
  help: 'Duration of GenAI client operations (OpenTelemetry gen_ai.client.operation.duration).',
  labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'toolgate_purpose', 'error_type'] as const,
  buckets: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
});

const tokenUsage = new Histogram({
  name: 'gen_ai_client_token_usage',
  help: 'Tokens used per GenAI client operation, by token type input or output (OpenTelemetry gen_ai.client.token.usage).',
  labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'toolgate_purpose', 'gen_ai_token_type'] as const,
  buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304],
});

const requestsTotal = new Counter({
  name: 'toolgate_llm_requests_total',
  help: 'Requests to model endpoints by purpose (plan, describe_image, rerank, embed) and outcome (ok, or the error code).',
  labelNames: ['toolgate_purpose', 'gen_ai_request_model', 'outcome'] as const,
});

export interface GenAiCall {
  /** `chat` or `embeddings`, as the conventions name them. */
  operation: 'chat' | 'embeddings';
  model: string;
  /** What Toolgate asked the model for. */
  purpose: 'plan' | 'describe_image' | 'rerank' | 'embed';
  provider?: string;
}

interface UsageReply {
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * Runs one request to a model endpoint and records its duration, outcome and token usage. `errorType`
 * names a failure by its code (a ToolgateError's or an HTTP client's), never by its message.
 */
export async function measureGenAi<T extends UsageReply>(call: GenAiCall, request: () => Promise<T>, errorType: (error: unknown) => string = defaultErrorType): Promise<T> {
  const labels = { gen_ai_operation_name: call.operation, gen_ai_provider_name: call.provider ?? 'openai', gen_ai_request_model: call.model, toolgate_purpose: call.purpose };
  const started = performance.now();
  try {
    const reply = await request();
    operationSeconds.observe({ ...labels, error_type: '' }, (performance.now() - started) / 1000);
    requestsTotal.inc({ toolgate_purpose: call.purpose, gen_ai_request_model: call.model, outcome: 'ok' });
    const { prompt_tokens: input, completion_tokens: output } = reply.usage ?? {};
    if (typeof input === 'number') tokenUsage.observe({ ...labels, gen_ai_token_type: 'input' }, input);
    if (typeof output === 'number') tokenUsage.observe({ ...labels, gen_ai_token_type: 'output' }, output);
    return reply;
  } catch (error) {
    const type = errorType(error);
    operationSeconds.observe({ ...labels, error_type: type }, (performance.now() - started) / 1000);
    requestsTotal.inc({ toolgate_purpose: call.purpose, gen_ai_request_model: call.model, outcome: type });
    throw error;
  }
}

/** A bounded name for a failure: the error's code or status when it has one, else its class. */
function defaultErrorType(error: unknown): string {
  const { code, status, name } = (error ?? {}) as { code?: unknown; status?: unknown; name?: unknown };
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return code;
  if (typeof status === 'number') return String(status);
  return typeof name === 'string' && /^[A-Za-z]{1,40}$/.test(name) ? name : '_OTHER';
}
