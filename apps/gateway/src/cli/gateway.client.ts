import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { Option } from 'commander';

/** `--url`: the commands that talk to a running gateway rather than to the catalog database. */
export const urlOption = (): Option => new Option('--url <url>', 'the running gateway').env('TOOLGATE_URL').default(`http://127.0.0.1:${process.env.PORT ?? 4000}`);

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

/** A request to a running gateway; a gateway that does not answer is UNAVAILABLE, naming --url. */
export async function fetchGateway(endpoint: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(endpoint, { ...init, signal: init.signal ?? AbortSignal.timeout(10 * 60_000) });
  } catch (error) {
    throw new ToolgateError(
      ErrorCode.UNAVAILABLE,
      `no gateway answers at ${endpoint}: start one with \`toolgate serve\`, or pass --url / $TOOLGATE_URL`,
      [{ path: '--url', message: String((error as Error).cause ?? error) }],
      { cause: error },
    );
  }
}

/**
 * One GraphQL operation against a running gateway as the key's principal. Its first error comes back
 * as the ToolgateError it was on the server (code, message, details), so the CLI prints it as it
 * prints its own.
 */
export async function gatewayGraphql<T>(url: string, key: string | undefined, query: string, variables: Record<string, unknown>): Promise<T> {
  const endpoint = `${url.replace(/\/+$/, '')}/graphql`;
  const response = await fetchGateway(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json().catch(() => null)) as {
    data?: T;
    errors?: { message: string; extensions?: { code?: string; details?: { path: string; message: string }[] } }[];
  } | null;
  if (!body) throw new ToolgateError(ErrorCode.UNAVAILABLE, `${endpoint} answered ${response.status} without a GraphQL body: is it a Toolgate gateway?`);
  const [first] = body.errors ?? [];
  if (first) {
    const code = first.extensions?.code ?? '';
    const known = KNOWN_CODES.has(code) ? (code as ErrorCode) : ErrorCode.INTERNAL;
    const hint = known === ErrorCode.UNAUTHENTICATED ? ' (pass --key or set $TOOLGATE_API_KEY)' : '';
    throw new ToolgateError(known, `${first.message}${hint}`, first.extensions?.details ?? []);
  }
  return body.data as T;
}
