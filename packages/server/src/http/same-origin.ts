import type { IncomingHttpHeaders } from 'node:http';

/**
 * For WebSocket upgrades authenticated in-band: browsers always send Origin on WebSockets, and
 * it must name this host. Clients that are not browsers send none and still need the bearer.
 */
export function sameOrigin(request: { headers: IncomingHttpHeaders }): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
