import { useEffect, useState } from 'react';

export type Route = { page: 'catalog' } | { page: 'search' } | { page: 'runs' } | { page: 'run'; runId: string } | { page: 'quality' };

/** `#/runs/<id>` and friends: hash routes need no server-side fallback under /console/. */
export function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, '').split('/');
  if (page === 'runs' && id) return { page: 'run', runId: decodeURIComponent(id) };
  if (page === 'search' || page === 'runs' || page === 'quality') return { page };
  return { page: 'catalog' };
}

export const hrefOf = (route: Route): string => (route.page === 'run' ? `#/runs/${encodeURIComponent(route.runId)}` : `#/${route.page}`);

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
