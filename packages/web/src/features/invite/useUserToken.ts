import type { UserTokenDetails } from '@postern/contracts';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../api';
import { routeTable } from '../../app/routes';
import { finishSignIn } from '../../app/session/signIn';
import { completeUserToken, fetchUserToken, type CompleteUserToken } from './userTokenApi';

export type TokenLoad =
  | { status: 'loading' }
  | { status: 'invalid' }
  | { status: 'error'; message: string }
  | { status: 'success'; data: UserTokenDetails };

export type SubmitAttempt =
  { status: 'idle' } | { status: 'processing' } | { status: 'error'; message: string };

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A link the server does not know (or no longer knows): the same answer for both. */
const isInvalidLink = (err: unknown) =>
  err instanceof ApiError && (err.status === 404 || err.status === 400);

/**
 * Loads an invite or reset link once (the server rotates the TOTP secret on every read, so a
 * second read would make the QR code on screen stale) and completes it.
 */
export function useUserToken(tokenId: string) {
  const [load, setLoad] = useState<TokenLoad>({ status: 'loading' });
  const [attempt, setAttempt] = useState<SubmitAttempt>({ status: 'idle' });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ status: 'loading' });
    fetchUserToken(tokenId, controller.signal).then(
      (data) => setLoad({ status: 'success', data }),
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setLoad(
          isInvalidLink(err) ? { status: 'invalid' } : { status: 'error', message: messageOf(err) },
        );
      },
    );
    return () => controller.abort();
  }, [tokenId, generation]);

  const retry = useCallback(() => setGeneration((g) => g + 1), []);

  const complete = useCallback(
    async (request: Omit<CompleteUserToken, 'tokenId'>) => {
      setAttempt({ status: 'processing' });
      try {
        await completeUserToken({ ...request, tokenId });
      } catch (err) {
        setAttempt({ status: 'error', message: messageOf(err) });
        return;
      }
      finishSignIn(routeTable.root.path);
    },
    [tokenId],
  );

  const clearError = useCallback(() => setAttempt({ status: 'idle' }), []);

  return { load, retry, attempt, complete, clearError };
}
