import { ErrorCode, type StepError, ToolgateError } from '@toolgate/sdk';

const CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

/**
 * Any thrown value as a ToolgateError. A plugin may carry its own copy of the sdk (its errors are then
 * not `instanceof` ours): such an error keeps its code; anything else is the tool's own failure.
 */
export function toToolgateError(error: unknown): ToolgateError {
  if (ToolgateError.is(error)) return error;
  if (error !== null && typeof error === 'object') {
    const { name, code, message, details } = error as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
    if (name === 'ToolgateError' && typeof code === 'string' && CODES.has(code)) {
      return new ToolgateError(code as ErrorCode, String(message), Array.isArray(details) ? details : [], { cause: error });
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolgateError(ErrorCode.TOOL_FAILED, `the tool failed: ${message}`, [], { cause: error });
}

export function stepErrorOf(error: ToolgateError): StepError {
  const path = error.details[0]?.path;
  return path === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, path };
}

/**
 * Failures a manifest's `fallback` stands in for: the tool itself could not serve (it failed, timed out,
 * its upstream or breaker is down, its bulkhead is full). Never the caller's fault (arguments,
 * permissions) and never an invalid output.
 */
const FALLBACK_CODES: ReadonlySet<ErrorCode> = new Set([ErrorCode.TIMEOUT, ErrorCode.UNAVAILABLE, ErrorCode.TOOL_FAILED, ErrorCode.INTERNAL, ErrorCode.CIRCUIT_OPEN, ErrorCode.OVERLOADED]);

export const fallbackCovers = (error: ToolgateError) => FALLBACK_CODES.has(error.code);

/** Rejects as soon as `signal` aborts, with its reason as a ToolgateError (the work itself may go on: only isolation can stop it). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function abortError(signal: AbortSignal): ToolgateError {
  const reason: unknown = signal.reason;
  if (ToolgateError.is(reason)) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return new ToolgateError(ErrorCode.TIMEOUT, 'the call timed out', [], { cause: reason });
  return new ToolgateError(ErrorCode.CANCELLED, 'the call was cancelled', [], { cause: reason });
}
