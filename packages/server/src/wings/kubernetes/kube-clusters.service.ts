import {
  defaultKubeClusterSort,
  type KubeClusterResource,
  type KubeClusterSortField,
} from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { ResourceCatalog, type CatalogRow } from '../../modules/inventory/resource-catalog.js';
import { kubeClusterKind } from './kube-kind.js';

export type KubeClusterRow = CatalogRow<KubeClusterResource>;

/**
 * The Kubernetes clusters: the catalog of the config file's, `postern create -f`'s and agents'
 * clusters, listed with RBAC by `kubernetes_labels` before paging.
 */
export class KubeClustersService extends ResourceCatalog<
  KubeClusterResource,
  KubeClusterSortField
> {
  constructor(
    backend: Backend,
    audit: AuditStore,
    options: {
      now?: Clock;
      onError?: (error: unknown) => void;
      configured: readonly KubeClusterResource[];
    },
  ) {
    super(
      backend,
      audit,
      {
        inventory: kubeClusterKind,
        ruleKind: 'kube_cluster',
        noun: 'Kubernetes cluster',
        audit: { created: 'T3010I', updated: 'T3011I', deleted: 'T3012I' },
        defaultSort: defaultKubeClusterSort,
      },
      options,
    );
  }
}
