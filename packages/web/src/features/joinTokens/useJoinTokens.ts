import type { CreateJoinTokenRequest, JoinTokenJson } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { createJoinToken, deleteJoinToken, fetchJoinTokens } from './joinTokensApi';

export const joinTokensQueryKey = ['joinTokens'] as const;

/** The live join tokens (they are the auth server's, not a cluster's). */
export function useJoinTokens() {
  return useQuery({
    queryKey: joinTokensQueryKey,
    queryFn: ({ signal }) => fetchJoinTokens(signal),
  });
}

export interface JoinTokenActions {
  create(request: CreateJoinTokenRequest): Promise<JoinTokenJson>;
  remove(id: string): Promise<void>;
  /** Reads the list again. */
  reload(): Promise<void>;
}

/** Each change reads the list again: one token more, one fewer. */
export function useJoinTokenActions(): JoinTokenActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: joinTokensQueryKey });
    return {
      create: async (request) => {
        const token = await createJoinToken(request);
        await reload();
        return token;
      },
      remove: async (id) => {
        await deleteJoinToken(id);
        await reload();
      },
      reload,
    };
  }, [client]);
}

/** The time now, moving on every `intervalMs`, so "in 25 minutes" stays true while shown. */
export function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
