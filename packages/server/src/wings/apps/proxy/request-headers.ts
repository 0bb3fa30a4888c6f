import {
  comparableName,
  cookiesWithout,
  hopByHopNames,
  isForwardingClaim,
  type HeaderMap,
  type OutgoingHeaders,
} from './headers.js';
import type { ProxyTarget } from './proxy-target.js';

/** How the request body is framed towards the upstream, decided from the client's request. */
export type BodyFraming =
  { kind: 'none' } | { kind: 'length'; length: string } | { kind: 'chunked' };

/**
 * The headers the upstream gets: the client's, without hop-by-hop headers, forwarding claims and
 * the stripped (identity) headers; then ours: Host of the upstream (apps are virtual-hosted on
 * their own name), X-Forwarded-*, the framing of the body, and last the target's setHeaders.
 */
export function upstreamRequestHeaders(
  incoming: HeaderMap,
  context: {
    target: ProxyTarget;
    clientAddress: string | undefined;
    framing: BodyFraming;
    upgrade: boolean;
  },
): OutgoingHeaders {
  const { target } = context;
  const dropped = hopByHopNames(incoming);
  // Host and framing are ours to set; Expect was answered by this hop already (Node sends the
  // client its 100 Continue before the request reaches the proxy).
  for (const name of ['host', 'content-length', 'expect']) dropped.add(name);
  // A header we set replaces the client's under any spelling, like a stripped one.
  const replaced = [...target.stripHeaders, ...Object.keys(target.setHeaders)];
  const stripped = new Set(replaced.map(comparableName));
  const strippedCookies = new Set(target.stripCookies ?? []);
  const headers: OutgoingHeaders = {};
  for (const [name, values] of Object.entries(incoming)) {
    if (values === undefined || dropped.has(name)) continue;
    if (isForwardingClaim(comparableName(name))) continue;
    if (stripped.has(comparableName(name))) continue;
    if (name === 'cookie') {
      const cookie = cookiesWithout(values, strippedCookies);
      if (cookie !== '') headers.cookie = [cookie];
      continue;
    }
    headers[name] = values;
  }
  if (context.upgrade && incoming.upgrade !== undefined) {
    headers.upgrade = incoming.upgrade;
    headers.connection = ['Upgrade'];
  }
  if (context.framing.kind === 'length') headers['content-length'] = [context.framing.length];
  if (context.framing.kind === 'chunked') headers['transfer-encoding'] = ['chunked'];
  headers.host = [target.upstream.host];
  if (context.clientAddress !== undefined) {
    headers['x-forwarded-for'] = [context.clientAddress.replace(/^::ffff:(?=\d+\.)/, '')];
  }
  headers['x-forwarded-host'] = [target.publicHost];
  headers['x-forwarded-proto'] = ['https'];
  headers['x-forwarded-port'] = [target.publicPort || '443'];
  for (const [name, value] of Object.entries(target.setHeaders))
    headers[name.toLowerCase()] = [value];
  return headers;
}
