import { ErrorCode, type JsonSchema, type ToolContext, ToolgateError } from '@toolgate/sdk';

const DEFAULT_MAX_BYTES = 1024 * 1024;
const MAX_BYTES_LIMIT = 5 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

export const ALLOWLIST_NOTE =
  'Only hosts listed in the TOOLGATE_HTTP_ALLOWLIST setting (comma-separated host globs such as "api.example.com,*.wikipedia.org") can be reached; ' +
  'when it is empty, as by default, every request is refused.';

/** Response headers worth returning; the rest (cookies, tracing, server internals) are dropped. */
const KEPT_HEADERS = ['content-type', 'content-length', 'content-language', 'content-disposition', 'last-modified', 'etag', 'cache-control', 'expires', 'date', 'location', 'retry-after'];

/** Headers the runtime owns; letting a caller set them would allow request smuggling or host confusion. */
const FORBIDDEN_REQUEST_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'upgrade', 'keep-alive', 'te', 'trailer', 'expect', 'proxy-authorization', 'proxy-connection']);

export const COMMON_INPUT_PROPERTIES: Record<string, JsonSchema> = {
  headers: {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 4096 },
    maxProperties: 30,
    description: 'Extra request headers, e.g. {"Accept": "application/json"}; Host, Content-Length and other hop-by-hop headers are not allowed.',
  },
  maxBytes: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_BYTES_LIMIT,
    default: DEFAULT_MAX_BYTES,
    description: 'Read at most this many bytes of the response body (default 1 MiB, limit 5 MiB); the rest is cut and `truncated` is true.',
  },
  timeoutMs: { type: 'integer', minimum: 100, maximum: 30000, default: 10000, description: 'Give up after this many milliseconds (default 10000).' },
};

export const RESPONSE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri', description: 'Final URL after redirects.' },
    status: { type: 'integer', description: 'HTTP status code of the final response.' },
    ok: { type: 'boolean', description: 'Whether the status is 2xx.' },
    redirects: { type: 'array', items: { type: 'string', format: 'uri' }, description: 'URLs redirected through, in order.' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: `Selected response headers: ${KEPT_HEADERS.join(', ')}.` },
    contentType: { type: 'string', description: 'Media type of the body without parameters, e.g. application/json ("" when absent).' },
    body: { type: 'string', description: 'The body: text for textual media types, base64 otherwise (see bodyEncoding); empty for HEAD.' },
    bodyEncoding: { type: 'string', enum: ['utf8', 'base64'], description: 'How body is encoded.' },
    bytes: { type: 'integer', description: 'Bytes of body returned.' },
    truncated: { type: 'boolean', description: 'Whether the body was cut at maxBytes.' },
  },
  required: ['url', 'status', 'ok', 'redirects', 'headers', 'contentType', 'body', 'bodyEncoding', 'bytes', 'truncated'],
  additionalProperties: false,
};

export interface HttpResponse {
  url: string;
  status: number;
  ok: boolean;
  redirects: string[];
  headers: Record<string, string>;
  contentType: string;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  bytes: number;
  truncated: boolean;
}

export interface HttpRequest {
  url: string;
  method: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  maxBytes?: number;
  timeoutMs?: number;
}

const invalid = (path: string, message: string) => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);
const failed = (message: string, cause?: unknown) => new ToolgateError(ErrorCode.TOOL_FAILED, message, [], { cause });

const bareHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/** Host globs from TOOLGATE_HTTP_ALLOWLIST; `*` matches any run of characters, so "*.example.com" covers every subdomain. */
export function allowlist(raw = process.env.TOOLGATE_HTTP_ALLOWLIST ?? ''): RegExp[] {
  return raw
    .split(',')
    .map((entry) => bareHost(entry.trim()))
    .filter((entry) => entry.length > 0)
    .map((glob) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
}

export const hostAllowed = (host: string, patterns: RegExp[]): boolean => patterns.some((p) => p.test(bareHost(host)));

/** Why a URL may not be requested, or undefined when it may. */
function refusal(url: URL, patterns: RegExp[]): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme "${url.protocol}" is not allowed (only http and https)`;
  if (url.username || url.password) return 'credentials in the URL are not allowed; pass an Authorization header instead';
  if (!hostAllowed(url.hostname, patterns)) {
    return patterns.length === 0 ? 'no host is allowed: TOOLGATE_HTTP_ALLOWLIST is empty' : `host "${bareHost(url.hostname)}" is not in TOOLGATE_HTTP_ALLOWLIST`;
  }
  return undefined;
}

function requestHeaders(headers: Record<string, string> | undefined): Headers {
  const result = new Headers({ 'user-agent': 'toolgate-http/1.0' });
  for (const [name, value] of Object.entries(headers ?? {})) {
    const pointer = `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw invalid(pointer, `"${name}" is not a valid header name`);
    if (FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase())) throw invalid(pointer, `the ${name} header is set by the runtime and cannot be given`);
    if (/[\r\n\0]/.test(value)) throw invalid(pointer, 'header values cannot contain line breaks');
    result.set(name, value);
  }
  return result;
}

const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|yaml|x-yaml|csv|ld\+json|problem\+json)$)|\+(json|xml)$/;

/** GET/HEAD/POST with the allowlist checked on the first URL and on every redirect, which is followed by hand. */
export async function request(req: HttpRequest, ctx: ToolContext): Promise<HttpResponse> {
  const patterns = allowlist();
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw invalid('/url', `"${req.url}" is not an absolute URL`);
  }
  const refused = refusal(url, patterns);
  if (refused) throw invalid('/url', refused);

  const headers = requestHeaders(req.headers);
  const timeout = AbortSignal.timeout(req.timeoutMs ?? 10_000);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const redirects: string[] = [];
  let method = req.method;
  let body = req.body;

  try {
    for (;;) {
      const response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return await readResponse(response, url, redirects, req, method, signal);

      await response.body?.cancel();
      if (redirects.length === MAX_REDIRECTS) throw failed(`more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      const why = refusal(next, patterns);
      if (why) throw failed(`redirect to ${next.href} refused: ${why}`);
      // Browsers turn a redirected POST into a GET for 301/302/303; 307/308 keep method and body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      if (next.origin !== url.origin) {
        headers.delete('authorization');
        headers.delete('cookie');
      }
      redirects.push(next.href);
      url = next;
    }
  } catch (error) {
    if (error instanceof ToolgateError) throw error;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) throw new ToolgateError(ErrorCode.TIMEOUT, `no complete response from ${url.host} within ${req.timeoutMs ?? 10_000} ms`, [], { cause: error });
    const reason = (error as { cause?: { code?: string; message?: string } }).cause;
    throw failed(`request to ${url.host} failed: ${reason?.code ?? reason?.message ?? (error as Error).message}`, error);
  }
}

async function readResponse(response: Response, url: URL, redirects: string[], req: HttpRequest, method: string, signal: AbortSignal): Promise<HttpResponse> {
  const limit = Math.min(req.maxBytes ?? DEFAULT_MAX_BYTES, MAX_BYTES_LIMIT);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (method !== 'HEAD' && response.body) {
    const reader = response.body.getReader();
    for (;;) {
      signal.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > limit) {
        chunks.push(value.subarray(0, limit - size));
        size = limit;
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  }
  const data = Buffer.concat(chunks);
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const textual = contentType === '' || TEXTUAL.test(contentType);
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return {
    url: url.href,
    status: response.status,
    ok: response.ok,
    redirects,
    headers,
    contentType,
    // stream: true drops a character cut in half at the size limit instead of emitting garbage.
    body: textual ? new TextDecoder('utf-8').decode(data, { stream: truncated }) : data.toString('base64'),
    bodyEncoding: textual ? 'utf8' : 'base64',
    bytes: data.length,
    truncated,
  };
}
