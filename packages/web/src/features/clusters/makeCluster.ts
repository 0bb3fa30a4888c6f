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
  proxyVersion: string;
}

export function makeCluster(json: ClusterJson): Cluster {
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
    proxyVersion: json.proxyVersion,
  };
}

/** Sorted by name, as the reference console lists them. */
export function makeClusters(list: ClusterJson[]): Cluster[] {
  return list.map(makeCluster).sort((a, b) => a.clusterId.localeCompare(b.clusterId));
}
