import { apiPaths } from '@postern/contracts';
import { api } from '../api';
import { findRoute, routeTable } from '../app/routes';
import type { PageviewSource } from './loader';

/** Spec §7: user events go to POST capture, fire and forget; before sign-in, to precapture. */
export const captureUrl = apiPaths.capture;
export const precaptureUrl = apiPaths.precapture;

/** The pages seen before sign-in (the login, invite and reset pages) have no session to send. */
function captureUrlFor(path: string): string {
  const route = findRoute(path);
  return route && 'public' in routeTable[route] ? precaptureUrl : captureUrl;
}

type Post = (url: string, body: unknown) => Promise<unknown>;

/** Reports each new path once; failures are swallowed because nobody waits for them. */
export function createPageviewReporter(post: Post): (path: string) => void {
  let last: string | undefined;
  return (path) => {
    if (path === last) return; // router updates also fire for non-navigation state changes
    last = path;
    Promise.resolve()
      .then(() => post(captureUrlFor(path), { event: 'pageview', path }))
      .catch(() => undefined);
  };
}

export function startPageviews(source: PageviewSource, post: Post = api.post): void {
  const report = createPageviewReporter(post);
  report(source.currentPath());
  source.onPathChange(report);
}
