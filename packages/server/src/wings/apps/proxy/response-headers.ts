import { hopByHopNames, type HeaderMap, type OutgoingHeaders } from './headers.js';
import { rewriteLocation, type LocationRules } from './location-rewrite.js';
import { rewriteSetCookie } from './set-cookie-rewrite.js';

/**
 * The headers the browser gets from the app's answer: without hop-by-hop headers (the proxy frames
 * the body to the client itself), with the Location and Set-Cookie fitted to the public host. A
 * 101 keeps its Upgrade, with the Connection that goes with it.
 */
export function downstreamResponseHeaders(
  incoming: HeaderMap,
  rules: LocationRules,
  options: { upgraded: boolean },
): OutgoingHeaders {
  const dropped = hopByHopNames(incoming);
  const headers: OutgoingHeaders = {};
  for (const [name, values] of Object.entries(incoming)) {
    if (values === undefined || dropped.has(name)) continue;
    if (name === 'location') headers[name] = values.map((value) => rewriteLocation(value, rules));
    else if (name === 'set-cookie') {
      headers[name] = values.map((value) => rewriteSetCookie(value, rules.basePath));
    } else headers[name] = values;
  }
  if (options.upgraded && incoming.upgrade !== undefined) {
    headers.upgrade = incoming.upgrade;
    headers.connection = ['Upgrade'];
  }
  return headers;
}
