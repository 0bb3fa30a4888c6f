/**
 * The upstream URL's path is a base the app lives under: the browser sees the app at the root of
 * its own host, so a path goes down by the base on the way in and up by it on the way out.
 */

/** The base path without its trailing slash: '' for an app at the upstream's root. */
export function basePathOf(upstream: URL): string {
  return upstream.pathname.replace(/\/+$/, '');
}

/** The upstream's request target for a client's origin-form target (`/x?y` → `/base/x?y`). */
export function upstreamTarget(basePath: string, target: string): string {
  return basePath + target;
}

/** A path the app produced, as the browser must see it: the base taken off when it is there. */
export function withoutBase(path: string, basePath: string): string {
  if (basePath === '') return path;
  if (path === basePath) return '/';
  if (path.startsWith(`${basePath}/`)) return path.slice(basePath.length);
  return path;
}
