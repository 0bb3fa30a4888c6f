import {
  defaultUserPreferences,
  type UnifiedResourcePreferences,
  type UserPreferences,
} from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import {
  fetchPinnedResources,
  fetchUserPreferences,
  savePinnedResources,
  saveUserPreferences,
} from './preferencesApi';

export const userPreferencesQueryKey = ['userPreferences'] as const;
export const pinnedResourcesQueryKey = (clusterId: string) =>
  ['pinnedResources', clusterId] as const;

export interface ResourcePreferences {
  /** False until the preferences are read (or failed to be: then the defaults hold). */
  settled: boolean;
  view: UnifiedResourcePreferences;
  changeView(change: Partial<UnifiedResourcePreferences>): void;
  pinned: ReadonlySet<string>;
  togglePin(id: string): void;
  /** Why the last save failed, until one succeeds. */
  saveError: string | undefined;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * How the Resources page opens and what the user pinned, kept on the server so they follow the
 * user (a trusted leaf's pins by the leaf, which answers its lists: the root passes them on). Each change shows at once and is saved behind it; saves go one at a time, so the last
 * one written is the last one made. A failed save says so and reads the stored value back.
 */
export function useResourcePreferences(clusterId: string): ResourcePreferences {
  const client = useQueryClient();
  const preferences = useQuery({
    queryKey: userPreferencesQueryKey,
    queryFn: ({ signal }) => fetchUserPreferences(signal),
    staleTime: Infinity,
    retry: false,
  });
  const pinsKey = pinnedResourcesQueryKey(clusterId);
  const pins = useQuery({
    queryKey: pinsKey,
    queryFn: ({ signal }) => fetchPinnedResources(clusterId, signal),
    staleTime: Infinity,
    retry: false,
  });
  const [saveError, setSaveError] = useState<string>();
  const saving = useRef<Promise<void>>(Promise.resolve());

  const save = useCallback(
    (write: () => Promise<unknown>, readBack: readonly unknown[]) => {
      saving.current = saving.current.then(write).then(
        () => setSaveError(undefined),
        (error: unknown) => {
          setSaveError(messageOf(error));
          void client.invalidateQueries({ queryKey: readBack });
        },
      );
      return saving.current;
    },
    [client],
  );

  const changeView = useCallback(
    (change: Partial<UnifiedResourcePreferences>) => {
      client.setQueryData<UserPreferences>(userPreferencesQueryKey, (old) => ({
        unifiedResourcePreferences: {
          ...(old ?? defaultUserPreferences).unifiedResourcePreferences,
          ...change,
        },
      }));
      void save(
        () => saveUserPreferences({ unifiedResourcePreferences: change }),
        userPreferencesQueryKey,
      );
    },
    [client, save],
  );

  const togglePin = useCallback(
    (id: string) => {
      const key = pinnedResourcesQueryKey(clusterId);
      client.setQueryData<string[]>(key, (old = []) =>
        old.includes(id) ? old.filter((pinned) => pinned !== id) : [...old, id],
      );
      // The pins as they are when this save's turn comes: a later toggle's change included.
      void save(
        () => savePinnedResources(clusterId, client.getQueryData<string[]>(key) ?? []),
        key,
      ).then(() => {
        // The Pinned tab lists by the pins: read it again. All shows the pin on the row already.
        const view = client.getQueryData<UserPreferences>(userPreferencesQueryKey);
        if (view?.unifiedResourcePreferences.defaultTab !== 'pinned') return;
        return client.invalidateQueries({ queryKey: ['unifiedResources', clusterId] });
      });
    },
    [client, clusterId, save],
  );

  const pinnedIds = pins.data;
  const pinned = useMemo(() => new Set(pinnedIds ?? []), [pinnedIds]);
  const view =
    preferences.data?.unifiedResourcePreferences ??
    defaultUserPreferences.unifiedResourcePreferences;
  return {
    settled: !preferences.isPending,
    view,
    changeView,
    pinned,
    togglePin,
    saveError,
  };
}
