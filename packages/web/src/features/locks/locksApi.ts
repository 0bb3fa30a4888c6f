import { apiPaths, lockJsonSchema, type CreateLockRequest } from '@postern/contracts';
import { api, decode } from '../../api';
import { makeLock, makeLocks, type Lock } from './makeLock';

/** Locks calls (spec §7 `locks`, `locks/{uuid}`) on the proxy cluster. */

export async function fetchLocks(clusterId: string, signal?: AbortSignal): Promise<Lock[]> {
  const url = apiPaths.locks(clusterId);
  return makeLocks(decode(lockJsonSchema.array(), await api.get(url, { signal }), url));
}

/** `PUT locks`: the server names the lock with a UUID. */
export async function createLock(clusterId: string, request: CreateLockRequest): Promise<Lock> {
  const url = apiPaths.locks(clusterId);
  return makeLock(decode(lockJsonSchema, await api.put(url, request), url));
}

export async function deleteLock(clusterId: string, uuid: string): Promise<void> {
  await api.delete(apiPaths.lock(clusterId, uuid));
}
