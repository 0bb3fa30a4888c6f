import type { AccessRequestScope, CreateAccessRequest, SubmitReview } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { assumeAccessRequest } from '../../app/session/switchRoles';
import {
  createAccessRequest,
  deleteAccessRequest,
  fetchAccessRequest,
  fetchAccessRequests,
  submitReview,
} from './accessRequestsApi';
import type { AccessRequest } from './makeRequest';

const accessRequestsKey = (clusterId: string) => ['accessRequests', clusterId] as const;

/**
 * `GET accessrequests?scope=` of the proxy cluster: the caller's own, or those to review.
 * `enabled` false asks nothing (a page that only suggests them, to a user who may not list them).
 */
export function useAccessRequests(scope: AccessRequestScope, enabled = true) {
  const { proxyCluster } = useClientConfig();
  return useQuery({
    queryKey: [...accessRequestsKey(proxyCluster), 'list', scope],
    queryFn: ({ signal }) => fetchAccessRequests(proxyCluster, scope, signal),
    enabled,
  });
}

/** One request, for its own screen. */
export function useAccessRequest(id: string) {
  const { proxyCluster } = useClientConfig();
  return useQuery({
    queryKey: [...accessRequestsKey(proxyCluster), 'one', id],
    queryFn: ({ signal }) => fetchAccessRequest(proxyCluster, id, signal),
  });
}

export interface AccessRequestActions {
  create(body: CreateAccessRequest): Promise<AccessRequest>;
  remove(id: string): Promise<void>;
  review(id: string, body: SubmitReview): Promise<void>;
  /** Renews the session with the request's roles, then reloads the page. */
  assume(id: string): Promise<void>;
}

export function useAccessRequestActions(): AccessRequestActions {
  const { proxyCluster } = useClientConfig();
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: accessRequestsKey(proxyCluster) });
    return {
      create: async (body) => {
        const created = await createAccessRequest(proxyCluster, body);
        await reload();
        return created;
      },
      remove: async (id) => {
        await deleteAccessRequest(proxyCluster, id);
        await reload();
      },
      review: async (id, body) => {
        await submitReview(proxyCluster, id, body);
        await reload();
      },
      assume: (id) => assumeAccessRequest(id),
    };
  }, [client, proxyCluster]);
}
