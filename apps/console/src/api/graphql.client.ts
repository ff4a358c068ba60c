import { type Client, createClient } from 'graphql-ws';

/** A GraphQL error as the gateway maps it: `extensions.code` is the domain code (FORBIDDEN, INVALID_ARGUMENTS, …). */
export class GraphqlError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface GraphqlResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export interface Subscription<T> {
  next(value: T): void;
  error(error: GraphqlError): void;
  complete(): void;
}

const firstError = (errors: NonNullable<GraphqlResponse<unknown>['errors']>): GraphqlError => new GraphqlError(errors[0].message, errors[0].extensions?.code ?? 'INTERNAL');

/**
 * The console's only way to the server: the public GraphQL API, over HTTP for queries and mutations
 * and over graphql-ws for subscriptions, with the same API key as any other client.
 */
export class GraphqlClient {
  private ws: Client | null = null;

  constructor(
    private readonly key: string | null,
    /** Called when the server no longer accepts the key (revoked, or the policy reloaded without it). */
    private readonly onUnauthenticated: (message: string) => void = () => {},
    private readonly origin = window.location.origin,
  ) {}

  async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    let response: Response;
    try {
      response = await fetch(`${this.origin}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    } catch (error) {
      throw new GraphqlError(`the gateway is unreachable: ${(error as Error).message}`, 'UNAVAILABLE');
    }
    const body = (await response.json().catch(() => null)) as GraphqlResponse<T> | null;
    if (!body) throw new GraphqlError(`the gateway answered HTTP ${response.status} without a GraphQL body`, 'INTERNAL');
    if (body.errors?.length) {
      const error = firstError(body.errors);
      if (error.code === 'UNAUTHENTICATED') this.onUnauthenticated(error.message);
      throw error;
    }
    return body.data as T;
  }

  subscribe<T>(query: string, variables: Record<string, unknown>, sink: Subscription<T>): () => void {
    this.ws ??= createClient({
      url: `${this.origin.replace(/^http/, 'ws')}/graphql`,
      connectionParams: this.key ? { authorization: this.key } : {},
      retryAttempts: 3,
    });
    return this.ws.subscribe<T>(
      { query, variables },
      {
        next: (value) => {
          if (value.errors?.length) sink.error(firstError(value.errors as NonNullable<GraphqlResponse<unknown>['errors']>));
          else if (value.data) sink.next(value.data as T);
        },
        error: (error) => sink.error(new GraphqlError(error instanceof Error ? error.message : 'the live connection closed', 'UNAVAILABLE')),
        complete: () => sink.complete(),
      },
    );
  }

  dispose(): void {
    void this.ws?.dispose();
    this.ws = null;
  }
}
