import { ConfigError } from '../config/config-error.js';

/** Postern's default web port, for `--proxy HOST` without one. */
const defaultProxyPort = '3080';

/**
 * The proxy's base URL from `--proxy`: `HOST:PORT` means HTTPS (what operators type), while a
 * full `http://` or `https://` URL is taken as written (tests, TLS-terminating load balancers).
 */
export function proxyBaseUrl(proxy: string): URL {
  const text = proxy.trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `https://${text}`);
  } catch {
    throw new ConfigError(`--proxy: expected HOST:PORT or an http(s):// URL, got '${proxy}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(
      `--proxy: only http:// and https:// proxies are supported, got '${proxy}'`,
    );
  }
  if (!hasScheme && !/:\d+$/.test(text)) url.port = defaultProxyPort;
  // Only the origin counts: API paths are absolute.
  return new URL(url.origin);
}

/** The ws:// or wss:// URL of a proxy path, matching the proxy's scheme. */
export function websocketUrl(base: URL, path: string): string {
  const url = new URL(path, base);
  url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
