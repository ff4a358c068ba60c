import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { APIConnectionError, APIConnectionTimeoutError, APIError, OpenAIError } from 'openai';

/** What the failing request was, for the messages: the endpoint and model the operator configured. */
export interface EndpointLabel {
  baseURL: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

/** Maps a failure of the openai client to a typed error naming the setting that fixes it; the original is the cause. */
export function toToolgateError(error: unknown, endpoint: EndpointLabel, deadlinePassed = false): ToolgateError {
  if (error instanceof ToolgateError) return error;
  const at = `the LLM endpoint ${endpoint.baseURL}`;
  const fail = (code: ErrorCode, message: string, path?: string) => new ToolgateError(code, message, path ? [{ path, message }] : [], { cause: error });

  if (deadlinePassed || error instanceof APIConnectionTimeoutError) {
    return fail(ErrorCode.TIMEOUT, `${at} did not answer within ${endpoint.timeoutMs} ms (TOOLGATE_LLM_TIMEOUT_MS)`, 'TOOLGATE_LLM_TIMEOUT_MS');
  }
  if (error instanceof APIConnectionError) return fail(ErrorCode.UNAVAILABLE, `${at} cannot be reached: ${error.message}`, 'OPENAI_BASE_URL');
  if (error instanceof APIError) {
    const detail = error.message;
    switch (error.status) {
      case 401:
        return fail(ErrorCode.INVALID_CONFIG, `${at} rejected the API key (OPENAI_API_KEY): ${detail}`, 'OPENAI_API_KEY');
      case 403:
        return fail(ErrorCode.INVALID_CONFIG, `${at} does not allow this API key to use model "${endpoint.model}": ${detail}`, 'OPENAI_API_KEY');
      case 404:
        return fail(ErrorCode.INVALID_CONFIG, `${at} does not know model "${endpoint.model}" (TOOLGATE_LLM_MODEL): ${detail}`, 'TOOLGATE_LLM_MODEL');
      case 429:
        return fail(ErrorCode.UNAVAILABLE, `${at} is rate limiting; still refused after ${endpoint.maxRetries} retries (TOOLGATE_LLM_MAX_RETRIES): ${detail}`);
    }
    if (error.code === 'context_length_exceeded') return fail(ErrorCode.BUDGET_EXCEEDED, `the request exceeds the context of model "${endpoint.model}": ${detail}`);
    if (error.status !== undefined && error.status >= 500) {
      return fail(ErrorCode.UNAVAILABLE, `${at} failed with HTTP ${error.status}; still failing after ${endpoint.maxRetries} retries (TOOLGATE_LLM_MAX_RETRIES): ${detail}`);
    }
    return fail(ErrorCode.UNAVAILABLE, `${at} refused the request with HTTP ${error.status ?? '?'}: ${detail}`);
  }
  if (error instanceof OpenAIError) return fail(ErrorCode.UNAVAILABLE, `${at}: ${error.message}`);
  return fail(ErrorCode.INTERNAL, `the LLM planner failed: ${error instanceof Error ? error.message : String(error)}`);
}
