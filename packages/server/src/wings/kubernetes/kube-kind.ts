import {
  kubeClusterNamePattern,
  type KubeClusterResource,
  type KubeClusterSortField,
} from '@postern/contracts';
import type { Item } from '../../backend/index.js';
import type { CatalogRecord } from '../../modules/inventory/resource-catalog.js';
import type { ResourceKind } from '../../modules/inventory/resource-kind.js';

/** A Kubernetes cluster as stored under `/kube_clusters/<name>` (the inventory's catalog). */
export type KubeClusterRecord = CatalogRecord<KubeClusterResource>;

export const kubeClustersPrefix = '/kube_clusters/';

/** The inventory's view of Kubernetes clusters: the generic resource list does the rest. */
export const kubeClusterKind: ResourceKind<KubeClusterRecord, KubeClusterSortField> = {
  accessKind: 'kube',
  recordsPrefix: kubeClustersPrefix,
  heartbeatsPrefix: '/kube_cluster_heartbeats/',
  parse: (item: Item) => JSON.parse(item.value) as KubeClusterRecord,
  idOf: (cluster) => cluster.metadata.name,
  isId: (id) => kubeClusterNamePattern.test(id),
  labelsOf: (cluster) => cluster.metadata.labels,
  searchTextsOf: (cluster) => [cluster.metadata.name, cluster.metadata.description],
  sortValues: {
    name: (cluster) => cluster.metadata.name,
    description: (cluster) => cluster.metadata.description,
  },
  expiresOf: (cluster) => cluster.expires,
  heartbeatTtlMs: 90_000,
};
