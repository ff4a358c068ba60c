import { useCallback, useEffect, useRef, useState } from 'react';
import { GraphqlError } from '../api/graphql.client';
import { useSession } from './console.context';

export interface QueryState<T> {
  data: T | null;
  /** When the request that produced `data` was sent (epoch ms): what is newer than it wins over it. */
  requestedAt: number;
  error: GraphqlError | null;
  loading: boolean;
  reload: () => void;
}

/** Runs a query when its variables change; `reload` runs it again. A stale answer never overwrites a newer one. */
export function useQuery<T>(query: string, variables: Record<string, unknown> | null = {}): QueryState<T> {
  const { client } = useSession();
  const [state, setState] = useState<{ data: T | null; requestedAt: number; error: GraphqlError | null; loading: boolean }>({
    data: null,
    requestedAt: 0,
    error: null,
    loading: variables !== null,
  });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const key = JSON.stringify(variables);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the variables' value.
  useEffect(() => {
    if (variables === null) return;
    const request = ++latest.current;
    const requestedAt = Date.now();
    setState((previous) => ({ ...previous, loading: true }));
    client.request<T>(query, variables).then(
      (data) => request === latest.current && setState({ data, requestedAt, error: null, loading: false }),
      (error: unknown) =>
        request === latest.current && setState((previous) => ({ ...previous, error: error instanceof GraphqlError ? error : new GraphqlError(String(error), 'INTERNAL'), loading: false })),
    );
  }, [client, query, key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}
