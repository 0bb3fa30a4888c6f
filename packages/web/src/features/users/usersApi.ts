import {
  apiPaths,
  mfaDeviceListSchema,
  userJsonSchema,
  userTokenSchema,
  type UserToken,
  type UserUpsertRequest,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { routePath } from '../../app/routes';
import { makeDevices, type Device } from '../account/makeDevice';
import { makeUser, makeUsers, type User } from './makeUser';

/** Manage Users calls (spec §7: `/users`, `users/{username}`, `users/password/token`). */

export async function fetchUsers(signal?: AbortSignal): Promise<User[]> {
  const json = await api.get(apiPaths.users, { signal });
  return makeUsers(decode(userJsonSchema.array(), json, apiPaths.users));
}

/** `POST /users`: the user has no password yet; an invite link follows. */
export async function createUser(request: UserUpsertRequest): Promise<User> {
  return makeUser(decode(userJsonSchema, await api.post(apiPaths.users, request), apiPaths.users));
}

/** `PUT /users`: roles and traits. */
export async function updateUser(request: UserUpsertRequest): Promise<User> {
  return makeUser(decode(userJsonSchema, await api.put(apiPaths.users, request), apiPaths.users));
}

/** `GET users/{username}/mfa/devices`: another user's devices, oldest first (locking one). */
export async function fetchUserDevices(name: string, signal?: AbortSignal): Promise<Device[]> {
  const path = apiPaths.userMfaDevices(name);
  return makeDevices(decode(mfaDeviceListSchema, await api.get(path, { signal }), path));
}

export async function deleteUser(name: string): Promise<void> {
  await api.delete(apiPaths.user(name));
}

export type UserTokenType = UserToken['type'];

/** `POST users/password/token`: an invite (new user) or a password reset link. */
export async function createUserToken(name: string, type: UserTokenType): Promise<UserToken> {
  const json = await api.post(apiPaths.userTokens, { name, type });
  return decode(userTokenSchema, json, apiPaths.userTokens);
}

/** The link the user opens: `/web/invite/<id>` or `/web/reset/<id>` on this origin. */
export function userTokenLink(token: UserToken, origin = window.location.origin): string {
  const { tokenId } = token;
  const path =
    token.type === 'invite'
      ? routePath('userInvite', { tokenId })
      : routePath('userReset', { tokenId });
  return `${origin}${path}`;
}
