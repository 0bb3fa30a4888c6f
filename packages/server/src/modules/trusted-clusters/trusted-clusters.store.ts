import type { TrustedCluster } from '@postern/contracts';
import { RevisionedStore, type Backend } from '../../backend/index.js';
import { ApiError } from '../../errors.js';

export const trustedClustersPrefix = '/trusted_clusters/';

/** What the root told this (leaf) cluster when it accepted it; kept beside the resource. */
export interface RootTrust {
  /** The root's key (SPKI PEM) that signs the identities of the root users it forwards. */
  identityKey: string;
  /** The host certificate the root issued for this cluster's tunnel key (renewed over it). */
  hostCertificate: string;
  validatedAt: string;
}

/** The resource as the admin wrote it (token included) and, once the root accepted it, the trust. */
export interface StoredTrustedCluster extends TrustedCluster {
  trust?: RootTrust;
}

export const trustedClusterNotFound = (name: string) =>
  new ApiError('not_found', `trusted cluster ${name} not found`);

/**
 * Trusted clusters of this (leaf) cluster under `/trusted_clusters/<root name>`, revisioned like
 * roles: reads carry the backend revision in `metadata.revision`, a PUT saves only over it.
 */
export class TrustedClustersStore extends RevisionedStore<StoredTrustedCluster> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: trustedClustersPrefix,
      keyOf: (name) => name,
      refOf: (resource) => resource.metadata.name,
      revisionInMetadata: true,
      errors: {
        notFound: trustedClusterNotFound,
        alreadyExists: (name) =>
          new ApiError('already_exists', `trusted cluster ${name} already exists`),
        changedMeanwhile: () =>
          new ApiError(
            'compare_failed',
            'the trusted cluster was changed by someone else since you opened it: reload and reapply your change',
          ),
      },
    });
  }
}
