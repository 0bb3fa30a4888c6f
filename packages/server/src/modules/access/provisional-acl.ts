import { aclAreas, emptyAcl, type AclArea, type AclVerb, type UserAcl } from '@postern/contracts';

/**
 * What each preset role grants, until the RBAC engine of issue 4 computes ACLs from role
 * resources. It is deliberately small and lives in this one file so that it is replaced whole.
 */
const allVerbs: AclVerb[] = ['list', 'read', 'edit', 'create', 'remove'];
const readVerbs: AclVerb[] = ['list', 'read'];

const presetGrants: Record<string, Partial<Record<AclArea, AclVerb[]>>> = {
  editor: Object.fromEntries(aclAreas.map((area) => [area, allVerbs])),
  auditor: { events: readVerbs, recordedSessions: readVerbs, activeSessions: readVerbs },
  access: {
    nodes: readVerbs,
    appServers: readVerbs,
    dbServers: readVerbs,
    db: readVerbs,
    kubeServers: readVerbs,
    desktops: readVerbs,
    activeSessions: readVerbs,
  },
};

export function aclForRoles(roles: readonly string[]): UserAcl {
  const acl = emptyAcl();
  for (const role of roles) {
    for (const [area, verbs] of Object.entries(presetGrants[role] ?? {})) {
      const access = acl[area as AclArea] as unknown as Record<AclVerb, boolean>;
      for (const verb of verbs ?? []) access[verb] = true;
    }
  }
  return acl;
}
