import { RevisionedStore, type Backend, type Item } from '../../backend/index.js';
import { ApiError, notFound } from '../../errors.js';
import { isAccessRequestId } from '@postern/contracts';
import type { AccessRequestResource } from './access-request.js';

export const accessRequestsPrefix = '/access_requests/';

/** How long a request stays listed after its access ended: history lives on in the audit log. */
const keptAfterEndMs = 24 * 3600 * 1000;

export const accessRequestNotFound = (id: string) => notFound(`access request ${id} not found`);
const changedMeanwhile = (id: string) =>
  new ApiError('compare_failed', `access request ${id} changed meanwhile; try again`);

/**
 * Access requests under `/access_requests/<uuid>`. The backend drops one a day after its access
 * would end; reviews are written over the revision read, so two reviewers never lose one.
 */
export class AccessRequestsStore extends RevisionedStore<AccessRequestResource> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: accessRequestsPrefix,
      keyOf: (id) => id,
      refOf: (request) => request.metadata.name,
      revisionInMetadata: true,
      expiresOf: (request) =>
        new Date(Date.parse(request.spec.accessExpires) + keptAfterEndMs).toISOString(),
      isRef: isAccessRequestId,
      errors: { notFound: accessRequestNotFound, changedMeanwhile },
    });
  }
}

export const accessRequestFromItem = (item: Item) =>
  JSON.parse(item.value) as AccessRequestResource;
