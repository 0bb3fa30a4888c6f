import {
  aclVerbs,
  emptyAcl,
  type AclArea,
  type AclVerb,
  type UserAcl,
  type UserContext,
} from '@postern/contracts';
import { clusterFixtures } from '../features/clusters/fixtures';

/** An ACL granting exactly the listed verbs ('all' for the five of spec §3). */
export function aclWith(grants: Partial<Record<AclArea, readonly AclVerb[] | 'all'>>): UserAcl {
  const acl = emptyAcl();
  for (const [area, verbs] of Object.entries(grants) as [AclArea, readonly AclVerb[] | 'all'][]) {
    for (const verb of verbs === 'all' ? aclVerbs : verbs)
      Object.assign(acl[area], { [verb]: true });
  }
  return acl;
}

const readList = ['list', 'read'] as const;

/**
 * The ACLs the server computes for the preset roles (packages/server rbac presets): editor
 * manages the admin areas, auditor reads audit, recordings and active sessions, access reaches
 * infrastructure and sees its own sessions.
 */
export const presetAcls = {
  editor: (() => {
    const acl = aclWith({
      authConnectors: 'all',
      trustedClusters: 'all',
      roles: 'all',
      users: 'all',
      tokens: 'all',
      billing: 'all',
      lock: 'all',
      plugins: 'all',
      integrations: 'all',
      connectionDiagnostic: 'all',
      deviceTrust: 'all',
      samlIdpServiceProvider: 'all',
      bots: 'all',
    });
    acl.integrations.use = true;
    return acl;
  })(),
  auditor: aclWith({ recordedSessions: readList, activeSessions: readList, events: readList }),
  access: aclWith({
    recordedSessions: readList,
    activeSessions: readList,
    appServers: readList,
    kubeServers: readList,
    dbServers: readList,
    db: readList,
    desktops: readList,
    nodes: readList,
  }),
} satisfies Record<string, UserAcl>;

/** `GET /sites/{clusterId}/context` as the server sends it, for a user with this ACL. */
export function userContextFixture(
  userAcl: UserAcl = presetAcls.editor,
  overrides: Partial<UserContext> = {},
): UserContext {
  return {
    userName: 'admin',
    authType: 'local',
    roles: ['editor'],
    logins: [],
    userAcl,
    cluster: clusterFixtures[0]!,
    accessStrategy: { type: 'optional', prompt: '' },
    accessCapabilities: { requestableRoles: [], suggestedReviewers: [] },
    accessRequestId: '',
    accessRequestExpires: '',
    assumedRoles: [],
    allowedSearchAsRoles: [],
    ...overrides,
  };
}
