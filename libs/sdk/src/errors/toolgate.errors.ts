/** Every failure Toolgate reports carries one of these codes; the gateway maps them 1:1 to GraphQL `extensions.code`. */
export enum ErrorCode {
  TOOL_NOT_FOUND = 'TOOL_NOT_FOUND',
  AMBIGUOUS_TOOL = 'AMBIGUOUS_TOOL',
  FORBIDDEN = 'FORBIDDEN',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  INVALID_ARGUMENTS = 'INVALID_ARGUMENTS',
  INVALID_PLAN = 'INVALID_PLAN',
  INVALID_CONFIG = 'INVALID_CONFIG',
  PLUGIN_INVALID = 'PLUGIN_INVALID',
  TIMEOUT = 'TIMEOUT',
  CIRCUIT_OPEN = 'CIRCUIT_OPEN',
  TOOL_FAILED = 'TOOL_FAILED',
  BUDGET_EXCEEDED = 'BUDGET_EXCEEDED',
  QUERY_TOO_DEEP = 'QUERY_TOO_DEEP',
  QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX',
  UNAVAILABLE = 'UNAVAILABLE',
  INDEX_UNAVAILABLE = 'INDEX_UNAVAILABLE',
  MODEL_UNAVAILABLE = 'MODEL_UNAVAILABLE',
  INTERNAL = 'INTERNAL',
  /** A tool version's concurrency limit (bulkhead) is full; the call was refused without running. */
  OVERLOADED = 'OVERLOADED',
  /** The caller (or shutdown) aborted the call before it finished. */
  CANCELLED = 'CANCELLED',
  /** The caller spent its request budget (token bucket); retry after the time given in `retryAfterSeconds`. */
  RATE_LIMITED = 'RATE_LIMITED',
  /** The process running the step died before the step finished; recorded at the next start. */
  INTERRUPTED = 'INTERRUPTED',
  /** A tool's output is over the configured size limit (`limits.maxOutputBytes`). */
  OUTPUT_TOO_LARGE = 'OUTPUT_TOO_LARGE',
}

/** One field-level problem: `path` is a JSON pointer (or dotted config path) into the offending input. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class ToolgateError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = 'ToolgateError';
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** When a caller may try again (a warming index, a saturated pool): transports pass it on (`extensions.retryAfterSeconds`). */
  readonly retryAfterSeconds?: number;

  static is(error: unknown, code?: ErrorCode): error is ToolgateError {
    return error instanceof ToolgateError && (code === undefined || error.code === code);
  }

  /** Human one-liner including the first field errors, for logs and CLIs. */
  describe(): string {
    if (this.details.length === 0) return `${this.code}: ${this.message}`;
    const fields = this.details
      .slice(0, 5)
      .map((d) => `${d.path || '/'} ${d.message}`)
      .join('; ');
    return `${this.code}: ${this.message} (${fields}${this.details.length > 5 ? '; ...' : ''})`;
  }
}
