import type { ClusterAlert } from '@postern/contracts';
import { isUuid, RevisionedStore, type Backend } from '../../backend/index.js';
import { notFound } from '../../errors.js';

export const clusterAlertsPrefix = '/cluster_alerts/';

export const alertNotFound = (name: string) => notFound(`alert ${name} not found`);

/**
 * Alerts under `/cluster_alerts/<uuid>`, the backend's TTL set to the alert's expiry so expired
 * ones leave by themselves (readers still compare `expires` with their clock).
 */
export class ClusterAlertsStore extends RevisionedStore<ClusterAlert> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: clusterAlertsPrefix,
      keyOf: (name) => name,
      refOf: (alert) => alert.metadata.name,
      revisionInMetadata: false,
      expiresOf: (alert) => alert.metadata.expires,
      // Names are fresh UUIDs; anything else never reaches the backend.
      isRef: isUuid,
      errors: { notFound: alertNotFound },
    });
  }
}
