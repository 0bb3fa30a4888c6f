import type { UserToken, UserUpsertRequest } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { userContextKeyPrefix } from '../../app/userContext';
import {
  createUser,
  createUserToken,
  deleteUser,
  fetchUserDevices,
  fetchUsers,
  updateUser,
  type UserTokenType,
} from './usersApi';

export const usersQueryKey = ['users'] as const;

/** `GET /users`, sorted by name. */
export function useUsers() {
  return useQuery({ queryKey: usersQueryKey, queryFn: ({ signal }) => fetchUsers(signal) });
}

/** User names for pickers elsewhere (Locks); asked for only when the user may list users. */
export function useUserNames(enabled: boolean) {
  return useQuery({
    queryKey: usersQueryKey,
    queryFn: ({ signal }) => fetchUsers(signal),
    enabled,
    select: (users) => users.map((user) => user.name),
  });
}

/** One user's MFA devices (Create New Lock's device picker); only while `enabled`. */
export function useUserDevices(name: string, enabled: boolean) {
  return useQuery({
    queryKey: [...usersQueryKey, name, 'devices'],
    queryFn: ({ signal }) => fetchUserDevices(name, signal),
    enabled: enabled && name !== '',
    retry: false,
  });
}

export interface UserActions {
  create(request: UserUpsertRequest): Promise<void>;
  update(request: UserUpsertRequest): Promise<void>;
  remove(name: string): Promise<void>;
  link(name: string, type: UserTokenType): Promise<UserToken>;
}

/** Writes reload the list, and the user context (an admin may have changed their own roles). */
export function useUserActions(): UserActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = async () => {
      void client.invalidateQueries({ queryKey: userContextKeyPrefix });
      await client.invalidateQueries({ queryKey: usersQueryKey });
    };
    return {
      create: async (request) => {
        await createUser(request);
        await reload();
      },
      update: async (request) => {
        await updateUser(request);
        await reload();
      },
      remove: async (name) => {
        await deleteUser(name);
        await reload();
      },
      link: (name, type) => createUserToken(name, type),
    };
  }, [client]);
}
