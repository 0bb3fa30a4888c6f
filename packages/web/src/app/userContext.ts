import { apiPaths, userContextSchema, type UserAcl, type UserContext } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { api, decode } from '../api';

/**
 * The user context (spec §3, reference §1.4): who is signed in and what their roles MIGHT allow.
 * The console asks once per session for the proxy cluster (the only cluster that answers), keeps
 * it in the query cache, and looks again when the window regains focus, so an ACL changed by an
 * admin reaches an open console without a reload.
 */
export const userContextKeyPrefix = ['userContext'] as const;
export const userContextQueryKey = (clusterId: string) =>
  [...userContextKeyPrefix, clusterId] as const;

export async function fetchUserContext(clusterId: string, signal?: AbortSignal) {
  const url = apiPaths.context(clusterId);
  return decode(userContextSchema, await api.get(url, { signal }), url);
}

/** Fresh for a minute: a focus right after loading does not ask again. */
const contextStaleMs = 60_000;

export function useUserContextQuery(clusterId: string) {
  return useQuery({
    queryKey: userContextQueryKey(clusterId),
    queryFn: ({ signal }) => fetchUserContext(clusterId, signal),
    staleTime: contextStaleMs,
    refetchOnWindowFocus: true,
  });
}

/** Provided by the user-context gate: every private page renders with a known context. */
export const UserContextContext = createContext<UserContext | null>(null);

export function useUserContext(): UserContext {
  const context = useContext(UserContextContext);
  if (!context) throw new Error('useUserContext needs a UserContextContext provider');
  return context;
}

/** The signed-in user's ACL, for the finer-grained choices inside pages (buttons, actions). */
export function useUserAcl(): UserAcl {
  return useUserContext().userAcl;
}
