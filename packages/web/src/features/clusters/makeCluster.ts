import type { ClusterJson } from '@postern/contracts';
import { routePath } from '../../app/routes';
import { formatDateTime, parseTimestamp } from '../../lib/format';

/** The console's model of a cluster (spec §3 "Cluster"), decoupled from the wire names. */
export interface Cluster {
  clusterId: string;
  lastConnected: Date | undefined;
  connectedText: string;
  status: ClusterJson['status'];
  url: string;
  authVersion: string;
  nodeCount: number;
  publicURL: string;
  /** Where the public URL leads, for a link; undefined when it is not an http(s) address. */
  publicHref: string | undefined;
  proxyVersion: string;
}

/** The page's own address, which tells the scheme of a public URL that names this proxy. */
export type Here = Pick<Location, 'protocol' | 'host'>;

/**
 * A public URL as a link target, only ever http or https. The server sends `host:port` as the
 * reference does; that is reached with https (a proxy behind a TLS load balancer included), or
 * with this page's own scheme when it is the address this page was served from.
 */
export function publicHref(publicURL: string, here: Here): string | undefined {
  const text = publicURL.trim();
  if (text === '') return undefined;
  const withScheme = /^[a-z][a-z\d+.-]*:\/\//i.test(text);
  try {
    const url = new URL(withScheme ? text : `${here.protocol}//${text}`);
    if (!withScheme && url.host !== here.host) url.protocol = 'https:';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    // Credentials in a link would be sent to whoever the address names.
    if (url.username || url.password) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

export function makeCluster(json: ClusterJson, here: Here = window.location): Cluster {
  const lastConnected = parseTimestamp(json.lastConnected);
  return {
    clusterId: json.name,
    lastConnected,
    connectedText: lastConnected ? formatDateTime(lastConnected) : '',
    status: json.status,
    url: routePath('cluster', { clusterId: json.name }),
    authVersion: json.authVersion,
    nodeCount: json.nodeCount,
    publicURL: json.publicURL,
    publicHref: publicHref(json.publicURL, here),
    proxyVersion: json.proxyVersion,
  };
}

/** Sorted by name, as the reference console lists them. */
export function makeClusters(list: ClusterJson[], here: Here = window.location): Cluster[] {
  return list
    .map((json) => makeCluster(json, here))
    .sort((a, b) => a.clusterId.localeCompare(b.clusterId));
}
