import type { HeadlessRequestView } from '@postern/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { WebauthnClient } from '../../lib/webauthn';
import { approveHeadlessRequest, fetchHeadlessRequest, rejectHeadlessRequest } from './headlessApi';

export type HeadlessDecision = 'accept' | 'denied';

export const headlessQueryKey = (requestId: string) => ['headless', requestId] as const;

/**
 * The request and the two answers. A successful answer is written into the cached request rather
 * than read back: the CLI collects an approved request within a second, after which it is gone.
 * A failed one reads the request again (it may have expired or been answered elsewhere).
 */
export function useHeadless(requestId: string, webauthn?: WebauthnClient) {
  const queryClient = useQueryClient();
  const request = useQuery({
    queryKey: headlessQueryKey(requestId),
    queryFn: ({ signal }) => fetchHeadlessRequest(requestId, signal),
    // Read once: after an answer the request may be gone, and a refetch would show "not found".
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const answer = useMutation({
    mutationFn: (decision: HeadlessDecision) =>
      decision === 'accept'
        ? approveHeadlessRequest(requestId, webauthn)
        : rejectHeadlessRequest(requestId),
    onSuccess: (_, decision) =>
      queryClient.setQueryData(
        headlessQueryKey(requestId),
        (current: HeadlessRequestView | undefined) =>
          current && { ...current, state: decision === 'accept' ? 'approved' : 'denied' },
      ),
    onError: () => queryClient.invalidateQueries({ queryKey: headlessQueryKey(requestId) }),
  });
  return { request, answer };
}
