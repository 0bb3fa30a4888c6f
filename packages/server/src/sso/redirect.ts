// eslint-disable-next-line no-control-regex
const unsafeCharacter = /[\\\u0000-\u001f\u007f]/;

/** Where a sign-in lands when the requested place is missing or not ours. */
export const defaultLanding = '/web';

/**
 * The same-origin path to land on after a sign-in, or `/web`. Accepts a path (`/web/cluster/…`)
 * or an absolute URL on this proxy's own origin; refuses anything that a browser could read as
 * another host (`//host`, backslashes, schemes, control characters), at any level of
 * percent-encoding, so the callback can never be an open redirect.
 */
export function safeRedirect(value: string | undefined, publicBase: string): string {
  if (!value) return defaultLanding;
  let candidate = value;
  if (!candidate.startsWith('/')) {
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      return defaultLanding;
    }
    if (url.origin !== new URL(publicBase).origin) return defaultLanding;
    candidate = url.pathname + url.search + url.hash;
  }
  let decoded = candidate;
  for (let round = 0; round < 5; round++) {
    if (unsafeCharacter.test(decoded) || /^\/\//.test(decoded) || /^\/[^/]*:/.test(decoded)) {
      return defaultLanding;
    }
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return defaultLanding;
    }
    if (next === decoded) break;
    decoded = next;
  }
  if (!decoded.startsWith('/') || candidate.length > 2048) return defaultLanding;
  return candidate;
}
