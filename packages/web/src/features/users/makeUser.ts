import type { UserJson, UserTraitName, UserTraits } from '@postern/contracts';

/** The console's model of a user (spec §3 "User"). */
export interface User {
  name: string;
  /** Sorted. */
  roles: string[];
  authType: 'local' | 'sso';
  /** 'Local' or 'SSO', as the table shows it. */
  authTypeText: string;
  isLocal: boolean;
  traits: UserTraits;
  /** The bot this user is the identity of: it is managed in Manage Bots. */
  bot?: string;
}

export function makeUser(json: UserJson): User {
  return {
    name: json.name,
    roles: [...json.roles].sort((a, b) => a.localeCompare(b)),
    authType: json.authType,
    authTypeText: json.bot ? 'Bot' : json.authType === 'sso' ? 'SSO' : 'Local',
    isLocal: json.isLocal,
    traits: json.traits,
    ...(json.bot ? { bot: json.bot } : {}),
  };
}

export function makeUsers(list: UserJson[]): User[] {
  return list.map(makeUser).sort((a, b) => a.name.localeCompare(b.name));
}

/** The traits of the create and edit dialogs, in order, with their labels. */
export const traitFields: readonly { name: UserTraitName; label: string }[] = [
  { name: 'logins', label: 'Logins' },
  { name: 'databaseUsers', label: 'Database Users' },
  { name: 'databaseNames', label: 'Database Names' },
  { name: 'kubeUsers', label: 'Kubernetes Users' },
  { name: 'kubeGroups', label: 'Kubernetes Groups' },
  { name: 'windowsLogins', label: 'Windows Logins' },
  { name: 'awsRoleArns', label: 'AWS Role ARNs' },
];

export const emptyTraits = (): UserTraits => ({
  logins: [],
  databaseUsers: [],
  databaseNames: [],
  kubeUsers: [],
  kubeGroups: [],
  windowsLogins: [],
  awsRoleArns: [],
});

/** Search: a user matches when every word is in the name, a role or the auth type. */
export function matchesSearch(user: User, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = [user.name, ...user.roles, user.authTypeText].join(' ').toLowerCase();
  return words.every((word) => haystack.includes(word));
}
