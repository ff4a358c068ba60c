import { createClient } from 'graphql-ws';

export interface StreamedEvent {
  seq: number;
  type: string;
  stepId: string | null;
  status: string | null;
}

/**
 * Subscribes to `runEvents(runId)` over graphql-ws as `key` (none: no connection params) and collects
 * what arrives: `events` fills as they come, `ready` resolves once connected, `done` when the stream
 * completes or errors.
 */
export function streamRunEvents(wsUrl: string, runId: string, key: string | null) {
  const client = createClient({ url: wsUrl, webSocketImpl: require('ws'), connectionParams: key ? { authorization: key } : {}, lazy: false, retryAttempts: 0 });
  const events: StreamedEvent[] = [];
  const ready = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  const done = new Promise<{ events: StreamedEvent[]; errors: unknown }>((resolve) => {
    client.subscribe<{ runEvents: StreamedEvent }>(
      { query: 'subscription($runId: ID!) { runEvents(runId: $runId) { seq type stepId status } }', variables: { runId } },
      {
        next: (value) => {
          if (value.data) events.push(value.data.runEvents);
          if (value.errors) resolve({ events, errors: value.errors });
        },
        error: (errors) => resolve({ events, errors }),
        complete: () => resolve({ events, errors: null }),
      },
    );
  }).finally(() => client.dispose());
  return { events, ready, done };
}
