import type { Request } from 'express';

/** What the GraphQL context function receives: Apollo's `{req}` over HTTP, graphql-ws's `{connectionParams}` over a WebSocket. */
export interface ContextSource {
  req?: Request;
  connectionParams?: Readonly<Record<string, unknown>>;
}

/**
 * The GraphQL context for both transports. A WebSocket operation gets a request-like object whose
 * `authorization` header is `connectionParams.authorization` (`Bearer <key>` or the bare key), so
 * PrincipalGuard authenticates subscriptions exactly like queries.
 */
export function graphqlContext({ req, connectionParams }: ContextSource): { req: Request } {
  if (req) return { req };
  const given = connectionParams?.authorization;
  const authorization = typeof given === 'string' && given.trim() !== '' ? (/^Bearer\s/i.test(given.trim()) ? given.trim() : `Bearer ${given.trim()}`) : undefined;
  return { req: { headers: authorization ? { authorization } : {} } as Request };
}
