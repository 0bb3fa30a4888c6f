import { useQuery } from '@tanstack/react-query';
import { fetchActiveSessions } from './sessionsApi';
import { makeSessions } from './makeSession';

/** Active sessions are polled (reference §1.7): who is connected changes by the second. */
export const sessionsRefetchMs = 5000;

// Durations are computed when an answer arrives, so each poll moves them on.
const selectSessions = (list: Parameters<typeof makeSessions>[0]) => makeSessions(list);

export const sessionsQueryKey = (clusterId: string) => ['activeSessions', clusterId] as const;

export function useSessions(clusterId: string) {
  return useQuery({
    queryKey: sessionsQueryKey(clusterId),
    queryFn: ({ signal }) => fetchActiveSessions(clusterId, signal),
    select: selectSessions,
    refetchInterval: sessionsRefetchMs,
  });
}
