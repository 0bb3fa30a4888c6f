import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { WebauthnClient } from '../../lib/webauthn';
import { approveHeadlessRequest, fetchHeadlessRequest, rejectHeadlessRequest } from './headlessApi';

export type HeadlessDecision = 'accept' | 'denied';

export const headlessQueryKey = (requestId: string) => ['headless', requestId] as const;

/** The request and the two answers; the request is read again after an answer. */
export function useHeadless(requestId: string, webauthn?: WebauthnClient) {
  const queryClient = useQueryClient();
  const request = useQuery({
    queryKey: headlessQueryKey(requestId),
    queryFn: ({ signal }) => fetchHeadlessRequest(requestId, signal),
  });
  const answer = useMutation({
    mutationFn: (decision: HeadlessDecision) =>
      decision === 'accept'
        ? approveHeadlessRequest(requestId, webauthn)
        : rejectHeadlessRequest(requestId),
    onSettled: () => queryClient.invalidateQueries({ queryKey: headlessQueryKey(requestId) }),
  });
  return { request, answer };
}
