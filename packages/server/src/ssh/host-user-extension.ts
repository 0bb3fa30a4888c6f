/**
 * `postern-host-user@postern.dev`: on the one-session certificate the proxy signs to dial a node,
 * what the node service may do when the login has no OS user yet (access-control/rbac/host-users.ts
 * decides it; node-service/host-users.ts does it). JSON, so group names and sudoers lines travel
 * as they are; a value that does not read back exactly is ignored, never half-used.
 */
export const POSTERN_HOST_USER_EXTENSION = 'postern-host-user@postern.dev';

export interface HostUserGrant {
  /** `keep`: the user stays; `insecure-drop`: it is deleted when its last session ends. */
  mode: 'keep' | 'insecure-drop';
  /** Supplementary groups (made when missing). */
  groups: string[];
  /** Lines of `/etc/sudoers.d/postern-<login>`, each after the login. */
  sudoers: string[];
}

const groupName = /^[a-z_][a-z0-9_-]{0,31}$/;
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;
const sudoersLine = (line: unknown) =>
  typeof line === 'string' && line !== '' && !controlCharacter.test(line);

export const encodeHostUser = (grant: HostUserGrant): string =>
  JSON.stringify({ mode: grant.mode, groups: grant.groups, sudoers: grant.sudoers });

/** The grant a certificate carries, if it carries a well-formed one. */
export function hostUserOf(extensions: Record<string, string>): HostUserGrant | undefined {
  const text = extensions[POSTERN_HOST_USER_EXTENSION];
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { mode, groups, sudoers } = (value ?? {}) as Record<string, unknown>;
  if (mode !== 'keep' && mode !== 'insecure-drop') return undefined;
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string' && groupName.test(g)))
    return undefined;
  if (!Array.isArray(sudoers) || !sudoers.every(sudoersLine)) return undefined;
  return { mode, groups: groups as string[], sudoers: sudoers as string[] };
}
