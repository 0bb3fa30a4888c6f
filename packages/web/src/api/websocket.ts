import { readStoredToken } from './credentials';

/**
 * What a WebSocket of the console needs from the API layer (spec §7 "Websockets"): the page's
 * origin, to build a same-origin `ws:`/`wss:` URL, and the bearer token, which the socket sends
 * in its first frame (never in the URL; DESIGN "Security model"). The same token the HTTP client
 * sends in its Authorization header.
 */
export interface PageOrigin {
  protocol: string;
  host: string;
}

export function pageOrigin(location: PageOrigin = window.location): PageOrigin {
  return { protocol: location.protocol, host: location.host };
}

/** The current bearer token, read at call time (it is renewed during the session). */
export function socketBearerToken(storage: Storage = localStorage): string | undefined {
  return readStoredToken(storage)?.accessToken;
}
