/** Header lists as Node gives them in `headersDistinct`: lower-case names, one entry per line. */
export type HeaderMap = Partial<Record<string, string[]>>;
export type OutgoingHeaders = Record<string, string[]>;

/**
 * Headers about one connection, never about the message (RFC 9110 §7.6.1), plus the old
 * Keep-Alive and Proxy-Connection and h2c's HTTP2-Settings: each hop sets its own.
 */
const hopByHop = [
  'connection',
  'http2-settings',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** The hop-by-hop names of one message: the fixed ones and those its Connection header names. */
export function hopByHopNames(headers: HeaderMap): Set<string> {
  const names = new Set(hopByHop);
  for (const value of headers.connection ?? []) {
    for (const token of value.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') names.add(name);
    }
  }
  return names;
}

/**
 * Headers with which a client would claim to be someone or somewhere else: the proxy states the
 * client's address, host and scheme itself and does not pass on a chain the client made up.
 */
export function isForwardingClaim(name: string): boolean {
  return name === 'forwarded' || name === 'x-real-ip' || name.startsWith('x-forwarded-');
}

/**
 * The form of a header name an app may read it under: some frameworks (CGI, WSGI, PHP) turn `-`
 * and `_` into the same character, so `X_Postern_Jwt` would reach them as `X-Postern-Jwt`.
 */
export function comparableName(name: string): string {
  return name.toLowerCase().replaceAll('_', '-');
}

/** The Cookie header without the named cookies, as one line ('' when nothing is left). */
export function cookiesWithout(lines: readonly string[], names: ReadonlySet<string>): string {
  return lines
    .flatMap((line) => line.split(';'))
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !names.has(cookieName(pair)))
    .join('; ');
}

function cookieName(pair: string): string {
  const equals = pair.indexOf('=');
  return (equals === -1 ? pair : pair.slice(0, equals)).trim();
}
