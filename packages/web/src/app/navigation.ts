import { matchKnownRoute, routeTable } from './routes';

/**
 * Navigation rules of spec §2: unknown targets fall back to the root route, login links carry
 * where the user was, and redirects never leave our origin.
 */
const rootPath = routeTable.root.path;

export interface Navigator {
  navigate(to: string, options: { replace: boolean }): void;
}

export interface Navigation {
  push(url: string): void;
  replace(url: string): void;
}

/** Wraps a router's navigate so that only known routes are reachable (an open-redirect guard). */
export function createNavigation(navigator: Navigator): Navigation {
  const go = (url: string, replace: boolean) =>
    navigator.navigate(matchKnownRoute(url) ? url : rootPath, { replace });
  return { push: (url) => go(url, false), replace: (url) => go(url, true) };
}

/** `/web/login`, with `redirect_uri` holding the page to come back to (path + search). */
export function loginUrl(redirectUri?: string): string {
  const login = routeTable.login.path;
  return redirectUri ? `${login}?redirect_uri=${encodeURIComponent(redirectUri)}` : login;
}

/** The current page as a `redirect_uri`: path and search, never the origin. */
export function currentPageUri(location: Pick<Location, 'pathname' | 'search'>): string {
  return `${location.pathname}${location.search}`;
}

// Control characters (C0, DEL, C1) never belong in a redirect and confuse URL parsers.
// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f-\u009f]/;

/** Every form the value takes while percent-decoding it, to catch `%2F%2Fevil` and friends. */
function decodedForms(raw: string): string[] | undefined {
  const forms = [raw];
  let current = raw;
  for (let i = 0; i < 5 && current.includes('%'); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      return undefined; // malformed escapes: refuse rather than guess
    }
    if (forms.includes(current)) break; // stable: nothing left to decode
    forms.push(current);
  }
  // Still decoding after several rounds: deeper nesting than any real link has.
  return forms.length > 5 ? undefined : forms;
}

function looksLocal(form: string): boolean {
  return (
    form.startsWith('/') &&
    !form.startsWith('//') &&
    !form.includes('\\') &&
    !controlChars.test(form)
  );
}

const hasScheme = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A full URL on our own origin (`https://proxy.example.com/web/users?q=1`) as the path it names;
 * anything else unchanged, for the checks below to judge. Control characters are left in, since
 * the URL parser would silently drop them.
 */
function relativeIfSameOrigin(raw: string, origin: string | undefined): string {
  if (!origin || !hasScheme.test(raw) || controlChars.test(raw) || raw.includes('\\')) return raw;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : raw;
}

/**
 * Forces a redirect target onto our origin: only absolute paths starting with a single `/` are
 * kept, in every decoded form, and full URLs whose origin is `origin` (ours), made relative.
 * Anything else (`//evil`, `/\evil`, `https://evil`, `javascript:`, encoded variants, control
 * characters) yields the root route.
 */
export function safeRedirect(raw: unknown, origin?: string): string {
  if (typeof raw !== 'string' || raw === '') return rootPath;
  const path = relativeIfSameOrigin(raw, origin);
  const forms = decodedForms(path);
  if (!forms || !forms.every(looksLocal)) return rootPath;
  // The final word belongs to a real URL parser: the result must resolve to our own origin.
  const base = 'https://postern.invalid';
  const url = new URL(path, base);
  if (url.origin !== base) return rootPath;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * Where a sign-in goes (spec §2): the `redirect_uri` when it is ours (see `safeRedirect`) and a
 * page of the console; an unknown path lands on the root route rather than on 404.
 */
export function signInTarget(raw: unknown, origin: string): string {
  const target = safeRedirect(raw, origin);
  return matchKnownRoute(target) ? target : rootPath;
}
