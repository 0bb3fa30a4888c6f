import { useEffect } from 'react';
import { useMatches, useParams } from 'react-router';

/** Routes carry their title in `handle`, so the top bar and document title agree. */
export interface RouteHandle {
  title: string;
}

const hasTitle = (handle: unknown): handle is RouteHandle =>
  typeof handle === 'object' &&
  handle !== null &&
  typeof (handle as RouteHandle).title === 'string';

/** Spec §2: '{clusterId} • {title}' when a cluster id is in the route, else '{title}'. */
export function documentTitle(title: string, clusterId?: string): string {
  return clusterId ? `${clusterId} • ${title}` : title;
}

/** The deepest route title and the route's cluster id, if any. */
export function useRouteTitle(): { title: string; clusterId: string | undefined } {
  const matches = useMatches();
  const { clusterId } = useParams();
  const handle = matches
    .map((m) => m.handle)
    .filter(hasTitle)
    .at(-1);
  return { title: handle?.title ?? 'Postern', clusterId };
}

export function DocumentTitle() {
  const { title, clusterId } = useRouteTitle();
  useEffect(() => {
    document.title = documentTitle(title, clusterId);
  }, [title, clusterId]);
  return null;
}
