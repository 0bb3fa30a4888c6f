import { withoutBase } from './base-path.js';

export interface LocationRules {
  upstream: URL;
  basePath: string;
  /** More host names the app may redirect to under its own name (rewrite.redirect). */
  redirectHosts: readonly string[];
  publicHost: string;
  publicPort: string;
  /**
   * The origin the client reached the app at, when that is not the public one: a `postern proxy
   * app` listener (`http://127.0.0.1:8080`). Redirects to the app, or to its public host, go there.
   */
  clientOrigin?: string;
}

/** `https://publicHost[:port]`, the origin the browser knows the app by. */
export function publicOrigin(publicHost: string, publicPort: string): string {
  const port = publicPort === '' || publicPort === '443' ? '' : `:${publicPort}`;
  return `https://${publicHost}${port}`;
}

/**
 * An app redirects to the address it believes it has (its upstream URL, or a name it was told);
 * the browser cannot reach that, so such an absolute Location is turned into the same path on the
 * public host. Relative Locations already resolve against the public host and stay as they are,
 * and so do redirects to any other site.
 */
export function rewriteLocation(location: string, rules: LocationRules): string {
  // Scheme-relative (`//host/x`) names a host too; anything without a scheme or `//` is relative.
  if (!/^([a-z][a-z\d+.-]*:|\/\/)/i.test(location)) return location;
  let url: URL;
  try {
    url = new URL(location, rules.upstream);
  } catch {
    return location;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return location;
  const rest = `${url.search}${url.hash}`;
  const publicAddress = publicOrigin(rules.publicHost, rules.publicPort);
  // An app that builds its URLs from X-Forwarded-Host names the public host: from a local
  // listener, that host would want a browser's sign-in, so the listener is meant.
  if (rules.clientOrigin && url.origin === publicAddress) {
    return `${rules.clientOrigin}${url.pathname}${rest}`;
  }
  if (!pointsAtApp(url, rules)) return location;
  const path = withoutBase(url.pathname, rules.basePath);
  return `${rules.clientOrigin ?? publicAddress}${path}${rest}`;
}

function pointsAtApp(url: URL, rules: LocationRules): boolean {
  const sameOrigin =
    url.hostname === rules.upstream.hostname && portOf(url) === portOf(rules.upstream);
  if (sameOrigin) return true;
  // A redirect host matches on any scheme and port, or on exactly the `host:port` it names.
  return rules.redirectHosts.some((host) => {
    const name = host.toLowerCase();
    return name === url.hostname || name === url.host;
  });
}

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}
