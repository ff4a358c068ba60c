import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/** Socket errors that say the request never left this host: safe to repeat even for a tool that is not idempotent. */
const NOT_STARTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Network errors worth another try; those after the request was sent leave its effect unknown. */
const TRANSIENT_NETWORK_CODES = new Set([...NOT_STARTED_CODES, 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Codes on the error or anywhere down its `cause` chain (fetch wraps socket errors as `TypeError: fetch failed`). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** A tool may mark a TOOL_FAILED as worth retrying with `transient: true` on the error (or on its cause). */
function markedTransient(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    if ((current as { transient?: unknown }).transient === true) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The failure proves the call had no effect: it never reached the tool's side effect (e.g. connection refused before sending). */
export function provesNotStarted(error: unknown): boolean {
  if (markedNotStarted(error)) return true;
  return causeCodes(error).some((code) => NOT_STARTED_CODES.has(code));
}

function markedNotStarted(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { notStarted?: unknown }).notStarted === true;
}

/**
 * Worth another attempt: timeouts, unavailability, network failures and failures the tool marked transient,
 * and an OVERLOADED marked transient (a remote worker at its capacity: another one, or a moment later, has room).
 * Never caller errors (INVALID_ARGUMENTS, FORBIDDEN, ...), an open breaker or this gateway's own full bulkhead.
 */
export function isTransient(error: unknown): boolean {
  if (!ToolgateError.is(error)) return causeCodes(error).some((code) => TRANSIENT_NETWORK_CODES.has(code));
  switch (error.code) {
    case ErrorCode.TIMEOUT:
    case ErrorCode.UNAVAILABLE:
      return true;
    case ErrorCode.OVERLOADED:
      return markedTransient(error);
    case ErrorCode.TOOL_FAILED:
      return markedTransient(error) || causeCodes(error).some((code) => TRANSIENT_NETWORK_CODES.has(code));
    default:
      return false;
  }
}

/**
 * Counts against the tool's health (the caller's tenant's breaker): the tool or its upstream misbehaved.
 * Never what the caller caused and the code says so: INVALID_ARGUMENTS (also a tool's own typed caller
 * error), FORBIDDEN, OUTPUT_TOO_LARGE, CANCELLED, an open breaker or a full bulkhead.
 */
export function isToolFault(error: unknown): boolean {
  if (!ToolgateError.is(error)) return true;
  return error.code === ErrorCode.TIMEOUT || error.code === ErrorCode.TOOL_FAILED || error.code === ErrorCode.UNAVAILABLE || error.code === ErrorCode.INTERNAL;
}
