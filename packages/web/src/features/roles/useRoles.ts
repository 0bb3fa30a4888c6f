import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { userContextKeyPrefix } from '../../app/userContext';
import { createRole, deleteRole, fetchRole, fetchRoles, updateRole } from './rolesApi';

export const rolesQueryKey = ['roles'] as const;

/** `GET /roles`: every role the user may read, by name. */
export function useRoles() {
  return useQuery({ queryKey: rolesQueryKey, queryFn: ({ signal }) => fetchRoles(signal) });
}

/**
 * Role names for pickers elsewhere (Users, Locks), shared with the Roles list's cache. Only asked
 * for when the user may list roles; otherwise the pickers take free text.
 */
export function useRoleNames(enabled: boolean) {
  return useQuery({
    queryKey: rolesQueryKey,
    queryFn: ({ signal }) => fetchRoles(signal),
    enabled,
    select: (items) => items.map((item) => item.name),
  });
}

export interface RoleActions {
  create(content: string): Promise<void>;
  update(name: string, content: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** The role as stored now (the 409 flow's Reload). */
  latest(name: string): Promise<string>;
}

/** Writes reload the list, and the user context: a role the user holds may have changed. */
export function useRoleActions(): RoleActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = async () => {
      void client.invalidateQueries({ queryKey: userContextKeyPrefix });
      await client.invalidateQueries({ queryKey: rolesQueryKey });
    };
    return {
      create: async (content) => {
        await createRole(content);
        await reload();
      },
      update: async (name, content) => {
        await updateRole(name, content);
        await reload();
      },
      remove: async (name) => {
        await deleteRole(name);
        await reload();
      },
      latest: async (name) => (await fetchRole(name)).content,
    };
  }, [client]);
}
