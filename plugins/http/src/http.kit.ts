import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ErrorCode, type JsonSchema, type ToolContext, ToolgateError } from '@toolgate/sdk';

const DEFAULT_MAX_BYTES = 1024 * 1024;
const MAX_BYTES_LIMIT = 5 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

export const ALLOWLIST_NOTE =
  'Only hosts listed in the TOOLGATE_HTTP_ALLOWLIST setting (comma-separated host globs such as "api.example.com,*.wikipedia.org") can be reached; ' +
  'when it is empty, as by default, every request is refused. The host name is resolved and every address checked: loopback, private, ' +
  'link-local, cloud metadata, multicast and other non-public addresses are refused unless TOOLGATE_HTTP_ALLOW_PRIVATE lists them, and only ' +
  'ports 80 and 443 are used unless TOOLGATE_HTTP_ALLOW_PORTS adds others.';

/** Response headers worth returning; the rest (cookies, tracing, server internals) are dropped. */
const KEPT_HEADERS = ['content-type', 'content-length', 'content-language', 'content-disposition', 'last-modified', 'etag', 'cache-control', 'expires', 'date', 'location', 'retry-after'];

/**
 * Headers the runtime owns; letting a caller set them would allow request smuggling or host confusion. Accept-Encoding
 * too: the body is returned as the server sent it, so none is asked for compressed.
 */
const FORBIDDEN_REQUEST_HEADERS = new Set([
  'accept-encoding',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

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
const misconfigured = (variable: string, message: string) => new ToolgateError(ErrorCode.TOOL_FAILED, `${variable}: ${message}`);

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

type Family = 'ipv4' | 'ipv6';
const familyOf = (address: string): Family | undefined => ({ 4: 'ipv4', 6: 'ipv6' })[isIP(address)] as Family | undefined;

/**
 * Adds a range to `list`, an IPv4 one also in the IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d,
 * and with `tunnels` the deprecated compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d and 6to4 2002:AABB:CCDD::), so
 * that no spelling of a refused IPv4 address gets through (an allowed one is allowed as itself and mapped only).
 */
function addRange(list: BlockList, address: string, prefix: number, family: Family, tunnels: boolean): void {
  list.addSubnet(address, prefix, family);
  if (family === 'ipv6') return;
  list.addSubnet(`::ffff:${address}`, 96 + prefix, 'ipv6');
  if (!tunnels) return;
  list.addSubnet(`::${address}`, 96 + prefix, 'ipv6');
  list.addSubnet(`64:ff9b::${address}`, 96 + prefix, 'ipv6');
  const [a, b, c, d] = address.split('.').map(Number);
  list.addSubnet(`2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`, 16 + prefix, 'ipv6');
}

/** Where a request may never go unless TOOLGATE_HTTP_ALLOW_PRIVATE says so: the gateway itself, its networks, cloud metadata. */
const REFUSED_RANGES: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'cloud metadata'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'discard-only'],
  ['64:ff9b:1::', 48, 'private (local NAT64)'],
  ['2001::', 32, 'reserved (Teredo)'],
  ['169.254.169.254', 32, 'cloud metadata'],
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private (carrier-grade NAT)'],
  ['169.254.0.0', 16, 'link-local'],
  ['192.0.0.0', 24, 'reserved (IETF protocol assignments)'],
  ['198.18.0.0', 15, 'reserved (benchmarking)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

const REFUSED = REFUSED_RANGES.map(([address, prefix, kind]) => {
  const list = new BlockList();
  addRange(list, address, prefix, familyOf(address) as Family, true);
  return { list, kind };
});

/** The kind of range `address` falls in when it is one requests must not reach, e.g. "loopback". */
export function refusedKind(address: string): string | undefined {
  const family = familyOf(address);
  if (!family) return 'not an IP address';
  return REFUSED.find(({ list }) => list.check(address, family))?.kind;
}

/** TOOLGATE_HTTP_ALLOW_PRIVATE: addresses or CIDR ranges (e.g. "127.0.0.1/32,10.0.0.0/8") the operator lets requests reach anyway. */
export function allowedPrivate(raw = process.env.TOOLGATE_HTTP_ALLOW_PRIVATE ?? ''): BlockList {
  const list = new BlockList();
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [address, bits, extra] = entry.split('/');
    const bare = address.replace(/^\[|\]$/g, '');
    const family = familyOf(bare);
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (!family || extra !== undefined || !(prefix >= 0 && prefix <= max)) throw misconfigured('TOOLGATE_HTTP_ALLOW_PRIVATE', `"${entry}" is not an IP address or CIDR range`);
    addRange(list, bare, prefix, family, false);
  }
  return list;
}

/** Ports every request may use; TOOLGATE_HTTP_ALLOW_PORTS adds others ("8080,9000-9100"). */
const DEFAULT_PORTS = [80, 443];

export function allowedPorts(raw = process.env.TOOLGATE_HTTP_ALLOW_PORTS ?? ''): (port: number) => boolean {
  const ranges = DEFAULT_PORTS.map((port) => [port, port]);
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry);
    const [low, high] = match ? [Number(match[1]), Number(match[2] ?? match[1])] : [0, -1];
    if (!(low >= 1 && high <= 65535 && low <= high)) throw misconfigured('TOOLGATE_HTTP_ALLOW_PORTS', `"${entry}" is not a port or a range of ports (e.g. 8080 or 9000-9100)`);
    ranges.push([low, high]);
  }
  return (port) => ranges.some(([low, high]) => port >= low && port <= high);
}

/** What the operator allows, read per call so a host can change it. */
interface HttpPolicy {
  hosts: RegExp[];
  privateAllowed: BlockList;
  portAllowed: (port: number) => boolean;
}

const policyFromEnv = (): HttpPolicy => ({ hosts: allowlist(), privateAllowed: allowedPrivate(), portAllowed: allowedPorts() });

const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Why a URL may not be requested, or undefined when it may (before its host name is resolved). */
function refusal(url: URL, policy: HttpPolicy): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme "${url.protocol}" is not allowed (only http and https)`;
  if (url.username || url.password) return 'credentials in the URL are not allowed; pass an Authorization header instead';
  if (!hostAllowed(url.hostname, policy.hosts)) {
    return policy.hosts.length === 0 ? 'no host is allowed: TOOLGATE_HTTP_ALLOWLIST is empty' : `host "${bareHost(url.hostname)}" is not in TOOLGATE_HTTP_ALLOWLIST`;
  }
  const port = portOf(url);
  if (!policy.portAllowed(port)) return `port ${port} is not allowed (only ${DEFAULT_PORTS.join(' and ')}, plus those in TOOLGATE_HTTP_ALLOW_PORTS)`;
  return undefined;
}

/** Every address a host name resolves to (`dns.lookup`, as the system resolves it); injectable for tests. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The one address the request will connect to, after every address the host has was checked: a name with
 * any refused address is refused as a whole (an attacker controls which one a client would pick). Names
 * under "localhost" are loopback by definition (RFC 6761) and never asked of DNS.
 */
async function checkedAddress(url: URL, policy: HttpPolicy, resolve: Resolver): Promise<{ address?: string; why?: string }> {
  const host = bareHost(url.hostname);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = ['127.0.0.1'];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw failed(`could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, error);
    }
  }
  if (addresses.length === 0) throw failed(`could not resolve ${host}: no address`);
  for (const address of addresses) {
    const kind = refusedKind(address);
    if (kind && !policy.privateAllowed.check(address, familyOf(address))) {
      const named = address === host ? address : `"${host}" resolves to ${address}, which`;
      return { why: `${named} is a ${kind} address; such addresses are refused unless TOOLGATE_HTTP_ALLOW_PRIVATE lists them` };
    }
  }
  return { address: addresses[0] };
}

function requestHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const result: Record<string, string> = { 'user-agent': 'toolgate-http/1.1' };
  for (const [name, value] of Object.entries(headers ?? {})) {
    const pointer = `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw invalid(pointer, `"${name}" is not a valid header name`);
    if (FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase())) throw invalid(pointer, `the ${name} header is set by the runtime and cannot be given`);
    if (/[\r\n\0]/.test(value)) throw invalid(pointer, 'header values cannot contain line breaks');
    result[name.toLowerCase()] = value;
  }
  return result;
}

const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|yaml|x-yaml|csv|ld\+json|problem\+json)$)|\+(json|xml)$/;

/** GET/HEAD/POST with the host, port and resolved address checked on the first URL and on every redirect, which is followed by hand. */
export async function request(req: HttpRequest, ctx: ToolContext, resolve: Resolver = systemResolver): Promise<HttpResponse> {
  const policy = policyFromEnv();
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw invalid('/url', `"${req.url}" is not an absolute URL`);
  }
  const refused = refusal(url, policy);
  if (refused) throw invalid('/url', refused);

  const headers = requestHeaders(req.headers);
  const timeout = AbortSignal.timeout(req.timeoutMs ?? 10_000);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const redirects: string[] = [];
  let method = req.method;
  let body = req.body;

  try {
    let target = await checkedAddress(url, policy, resolve);
    if (target.why) throw invalid('/url', target.why);
    for (;;) {
      const response = await send(url, target.address as string, method, headers, body, signal);
      const location = response.headers.location;
      const status = response.statusCode ?? 0;
      if (status < 300 || status >= 400 || location === undefined) return await readResponse(response, url, redirects, req, method, signal);

      response.destroy();
      if (redirects.length === MAX_REDIRECTS) throw failed(`more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      const why = refusal(next, policy);
      if (why) throw failed(`redirect to ${next.href} refused: ${why}`);
      target = await checkedAddress(next, policy, resolve);
      if (target.why) throw failed(`redirect to ${next.href} refused: ${target.why}`);
      // Browsers turn a redirected POST into a GET for 301/302/303; 307/308 keep method and body.
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== url.origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      redirects.push(next.href);
      url = next;
    }
  } catch (error) {
    if (error instanceof ToolgateError) throw error;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) throw new ToolgateError(ErrorCode.TIMEOUT, `no complete response from ${url.host} within ${req.timeoutMs ?? 10_000} ms`, [], { cause: error });
    const e = error as NodeJS.ErrnoException;
    throw failed(`request to ${url.host} failed: ${e.code ?? e.message}`, error);
  }
}

/**
 * Sends one request to `address`, the address that was checked: the `lookup` given to the socket answers with
 * it, so the name is not resolved again between the check and the connection (no DNS rebinding), while the Host
 * header and TLS (SNI, certificate) still use the name. `agent: false`: no pooled socket from an earlier check.
 */
function send(url: URL, address: string, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  const family = isIP(address);
  const pinned: LookupFunction = (_host, options, done) => {
    if (options.all) done(null, [{ address, family }]);
    else done(null, address, family);
  };
  const client = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = client({ hostname: bareHost(url.hostname), port: portOf(url), path: `${url.pathname}${url.search}`, method, headers, signal, lookup: pinned, agent: false }, resolve);
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

async function readResponse(response: IncomingMessage, url: URL, redirects: string[], req: HttpRequest, method: string, signal: AbortSignal): Promise<HttpResponse> {
  const limit = Math.min(req.maxBytes ?? DEFAULT_MAX_BYTES, MAX_BYTES_LIMIT);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  if (method !== 'HEAD') {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      if (size + chunk.length > limit) {
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  response.destroy();
  const data = Buffer.concat(chunks);
  const header = (name: string): string | undefined => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const contentType = (header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const textual = contentType === '' || TEXTUAL.test(contentType);
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = header(name);
    if (value !== undefined) headers[name] = value;
  }
  const status = response.statusCode ?? 0;
  return {
    url: url.href,
    status,
    ok: status >= 200 && status < 300,
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
