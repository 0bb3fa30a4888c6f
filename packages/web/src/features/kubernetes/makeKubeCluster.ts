import type { KubeClusterJson, KubeClusterSortField, NodeLabel } from '@postern/contracts';
import type { ListFilters } from '../../components/resourceList/listFilters';

/** The console's model of a Kubernetes cluster (spec §3 Kube cluster: name, labels, users, groups). */
export interface KubeCluster {
  name: string;
  description: string;
  labels: NodeLabel[];
  /** The Kubernetes users and groups this user's roles let them act as here. */
  users: string[];
  groups: string[];
  /** Reached through an agent's tunnel. */
  tunnel: boolean;
  status: 'online' | 'offline';
}

export function makeKubeCluster(json: KubeClusterJson): KubeCluster {
  return {
    name: json.name,
    description: json.description,
    labels: json.labels,
    users: json.kubernetes_users,
    groups: json.kubernetes_groups,
    tunnel: json.tunnel,
    status: json.status,
  };
}

export interface KubeClusterPage {
  clusters: KubeCluster[];
  startKey: string;
  totalCount: number;
}

export type KubeClusterFilters = ListFilters<KubeClusterSortField>;

export const noFilters: KubeClusterFilters = { search: '', query: '' };

/**
 * Who requests run as: the users the roles name, or, when they name none, the user's own name
 * (the proxy impersonates the Postern user then).
 */
export const kubeUsersText = (users: string[]) =>
  users.length === 0 ? 'your name' : users.join(', ');

export const kubeGroupsText = (groups: string[]) =>
  groups.length === 0 ? 'none' : groups.join(', ');

/**
 * The command that writes the cluster's kubectl context (docs: `postern kube login`); with
 * `leaf`, a trusted leaf cluster's, through this cluster (`--cluster`).
 */
export const kubeLoginCommand = (cluster: Pick<KubeCluster, 'name'>, leaf?: string) =>
  `postern kube login ${cluster.name}${leaf ? ` --cluster ${leaf}` : ''}`;
