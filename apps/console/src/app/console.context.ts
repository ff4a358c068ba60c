import { createContext, useContext } from 'react';
import type { Me } from '../api/console.queries';
import type { GraphqlClient } from '../api/graphql.client';

export interface ConsoleSession {
  client: GraphqlClient;
  me: Me;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

/** The signed-in caller and its client; every page is rendered inside a session. */
export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
