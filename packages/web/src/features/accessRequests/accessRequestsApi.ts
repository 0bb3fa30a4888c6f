import {
  accessRequestJsonSchema,
  accessRequestListSchema,
  apiPaths,
  type AccessRequestScope,
  type CreateAccessRequest,
  type SubmitReview,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { makeRequest, type AccessRequest } from './makeRequest';

/** Access request calls (docs/access-requests.md) on the proxy cluster. */

export async function fetchAccessRequests(
  clusterId: string,
  scope: AccessRequestScope,
  signal?: AbortSignal,
): Promise<AccessRequest[]> {
  const url = `${apiPaths.accessRequests(clusterId)}?scope=${scope}`;
  const list = decode(accessRequestListSchema, await api.get(url, { signal }), url);
  return list.items.map(makeRequest);
}

export async function fetchAccessRequest(
  clusterId: string,
  id: string,
  signal?: AbortSignal,
): Promise<AccessRequest> {
  const url = apiPaths.accessRequest(clusterId, id);
  return makeRequest(decode(accessRequestJsonSchema, await api.get(url, { signal }), url));
}

export async function createAccessRequest(
  clusterId: string,
  body: CreateAccessRequest,
): Promise<AccessRequest> {
  const url = apiPaths.accessRequests(clusterId);
  return makeRequest(decode(accessRequestJsonSchema, await api.post(url, body), url));
}

export async function deleteAccessRequest(clusterId: string, id: string): Promise<void> {
  await api.delete(apiPaths.accessRequest(clusterId, id));
}

export async function submitReview(
  clusterId: string,
  id: string,
  body: SubmitReview,
): Promise<AccessRequest> {
  const url = apiPaths.accessRequestReviews(clusterId, id);
  return makeRequest(decode(accessRequestJsonSchema, await api.post(url, body), url));
}
