import type { IncomingMessage } from 'node:http';

/**
 * One cookie's value from a raw request's `Cookie` header, for handlers that run before Fastify
 * (host routes: an app's own origin, a call about a leaf cluster), where @fastify/cookie has not
 * parsed it.
 */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
