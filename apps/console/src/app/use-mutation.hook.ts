import { useCallback, useState } from 'react';
import { GraphqlError } from '../api/graphql.client';
import { useSession } from './console.context';

/** A mutation a button sends: busy while it runs, its error shown, `onDone` after it succeeds. */
export function useMutation(onDone: () => void): { send: (mutation: string, variables: Record<string, unknown>) => Promise<void>; busy: boolean; error: GraphqlError | null } {
  const { client } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<GraphqlError | null>(null);
  const send = useCallback(
    async (mutation: string, variables: Record<string, unknown>) => {
      setBusy(true);
      setError(null);
      try {
        await client.request(mutation, variables);
        onDone();
      } catch (caught) {
        setError(caught instanceof GraphqlError ? caught : new GraphqlError(String(caught), 'INTERNAL'));
      } finally {
        setBusy(false);
      }
    },
    [client, onDone],
  );
  return { send, busy, error };
}
