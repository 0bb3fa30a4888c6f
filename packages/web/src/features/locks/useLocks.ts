import type { CreateLockRequest } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { createLock, deleteLock, fetchLocks } from './locksApi';

export const locksQueryKey = (clusterId: string) => ['locks', clusterId] as const;

/** `GET locks` of the proxy cluster. */
export function useLocks() {
  const { proxyCluster } = useClientConfig();
  return useQuery({
    queryKey: locksQueryKey(proxyCluster),
    queryFn: ({ signal }) => fetchLocks(proxyCluster, signal),
  });
}

export interface LockActions {
  create(request: CreateLockRequest): Promise<void>;
  remove(id: string): Promise<void>;
}

export function useLockActions(): LockActions {
  const { proxyCluster } = useClientConfig();
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: locksQueryKey(proxyCluster) });
    return {
      create: async (request) => {
        await createLock(proxyCluster, request);
        await reload();
      },
      remove: async (id) => {
        await deleteLock(proxyCluster, id);
        await reload();
      },
    };
  }, [client, proxyCluster]);
}
