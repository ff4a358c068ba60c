import { type FormEvent, lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { ME, type Me } from '../api/console.queries';
import { GraphqlClient, GraphqlError } from '../api/graphql.client';
import { CatalogPage } from '../catalog/catalog.page';
import { RunsPage } from '../runs/runs.page';
import { SessionContext } from './console.context';
import { hrefOf, type Route, useRoute } from './hash.route';

// The pages with charts and the graph load on first visit: the catalog, the first page, needs neither library.
const SearchPage = lazy(() => import('../search/search.page').then((m) => ({ default: m.SearchPage })));
const RunPage = lazy(() => import('../runs/run.page').then((m) => ({ default: m.RunPage })));
const QualityPage = lazy(() => import('../quality/quality.page').then((m) => ({ default: m.QualityPage })));

/** The key lives for the browser tab only: closing it signs out, and no cookie carries it to other sites. */
const KEY_STORAGE = 'toolgate.apiKey';

const NAV: { route: Route; label: string }[] = [
  { route: { page: 'catalog' }, label: 'Catalog' },
  { route: { page: 'search' }, label: 'Search playground' },
  { route: { page: 'runs' }, label: 'Runs' },
  { route: { page: 'quality' }, label: 'Tool quality' },
];

type SessionState = { status: 'checking' } | { status: 'signed-out'; error: string | null } | { status: 'signed-in'; client: GraphqlClient; me: Me };

export function App() {
  const [session, setSession] = useState<SessionState>({ status: 'checking' });

  const signIn = useCallback(async (key: string | null) => {
    // A key the server stops accepting ends the session: back to the form, saying why.
    const client = new GraphqlClient(key, (message) => {
      sessionStorage.removeItem(KEY_STORAGE);
      setSession((current) => (current.status === 'signed-in' && current.client === client ? { status: 'signed-out', error: message } : current));
    });
    try {
      const { me } = await client.request<{ me: Me }>(ME);
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      setSession({ status: 'signed-in', client, me });
    } catch (error) {
      client.dispose();
      sessionStorage.removeItem(KEY_STORAGE);
      const keyed = error instanceof GraphqlError && error.code === 'UNAUTHENTICATED';
      setSession({ status: 'signed-out', error: keyed && !key ? null : (error as Error).message });
    }
  }, []);

  // A server without API keys (local mode) lets the console in as the local admin; otherwise the tab's key, if any.
  useEffect(() => {
    void signIn(sessionStorage.getItem(KEY_STORAGE));
  }, [signIn]);

  const signOut = () => {
    if (session.status === 'signed-in') session.client.dispose();
    sessionStorage.removeItem(KEY_STORAGE);
    setSession({ status: 'signed-out', error: null });
  };

  if (session.status === 'checking') return <p className="centered">Connecting to the gateway…</p>;
  if (session.status === 'signed-out') return <SignIn error={session.error} onSubmit={(key) => void signIn(key)} />;
  return (
    <SessionContext.Provider value={{ client: session.client, me: session.me }}>
      <Shell me={session.me} onSignOut={signOut} />
    </SessionContext.Provider>
  );
}

function SignIn({ error, onSubmit }: { error: string | null; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim()) onSubmit(key.trim());
  };
  return (
    <main className="sign-in">
      <h1>Toolgate console</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" value={key} onChange={(event) => setKey(event.target.value)} required />
        <button type="submit">Sign in</button>
        {error && (
          <p id="sign-in-error" role="alert" className="error">
            {error}
          </p>
        )}
      </form>
      <p className="hint">The same key as for the GraphQL API (Authorization: Bearer). It is kept in this browser tab only.</p>
    </main>
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const route = useRoute();
  const current = route.page === 'run' ? 'runs' : route.page;
  const page = useMemo(() => {
    switch (route.page) {
      case 'search':
        return <SearchPage />;
      case 'runs':
        return <RunsPage />;
      case 'run':
        return <RunPage runId={route.runId} />;
      case 'quality':
        return <QualityPage />;
      default:
        return <CatalogPage />;
    }
  }, [route]);
  return (
    <>
      <header className="top">
        <span className="brand">Toolgate</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(({ route: target, label }) => (
              <li key={label}>
                <a href={hrefOf(target)} aria-current={current === target.page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">
          {me.tenant}/{me.subject}
          {me.admin ? ' · admin' : ''}
        </span>
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Suspense fallback={<p>Loading…</p>}>{page}</Suspense>
      </main>
    </>
  );
}
