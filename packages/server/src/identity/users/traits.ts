import {
  userTraitNames,
  type UserJson,
  type UserTraitName,
  type UserTraits,
} from '@postern/contracts';
import type { UserResource } from './users.store.js';

/**
 * The console names traits one way (spec §3), roles' templates another (`{{internal.db_users}}`,
 * as in the reference). Users store the internal names; this is the one place that maps them.
 */
export const internalTraitOf: Readonly<Record<UserTraitName, string>> = {
  logins: 'logins',
  databaseUsers: 'db_users',
  databaseNames: 'db_names',
  kubeUsers: 'kubernetes_users',
  kubeGroups: 'kubernetes_groups',
  windowsLogins: 'windows_logins',
  awsRoleArns: 'aws_role_arns',
};

/** UI traits to internal ones; only the traits given (a partial update leaves the rest). */
export function traitsToInternal(traits: Partial<UserTraits>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of userTraitNames) {
    const values = traits[name];
    if (values) out[internalTraitOf[name]] = values;
  }
  return out;
}

export function traitsFromInternal(traits: Readonly<Record<string, string[] | undefined>>) {
  return Object.fromEntries(
    userTraitNames.map((name) => [name, [...(traits[internalTraitOf[name]] ?? [])]]),
  ) as UserTraits;
}

/** A user as the Users screen shows it. */
export function toUserJson(user: UserResource): UserJson {
  return {
    name: user.metadata.name,
    roles: [...user.spec.roles].sort(),
    authType: user.spec.authType === 'local' ? 'local' : 'sso',
    isLocal: user.spec.authType === 'local',
    traits: traitsFromInternal(user.spec.traits),
    ...(user.spec.bot ? { bot: user.spec.bot } : {}),
  };
}
