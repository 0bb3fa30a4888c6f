import { aclAreas, emptyAcl, type AclArea, type UserAcl } from '@postern/contracts';
import type { RoleSet } from './role-set.js';

/**
 * THE table from console ACL areas (spec §3) to role-rule resource kinds. An area's flag is true
 * when the verb might be allowed on ANY of its kinds. Verbs map as list→list, read→read (or
 * readnosecrets), edit→update, create→create, remove→delete; integrations.use→use.
 */
export const aclAreaKinds: Readonly<Record<AclArea, readonly string[]>> = {
  authConnectors: ['auth_connector', 'oidc', 'saml', 'github'],
  trustedClusters: ['trusted_cluster'],
  roles: ['role'],
  recordedSessions: ['session'],
  activeSessions: ['session_tracker', 'ssh_session'],
  events: ['event'],
  users: ['user'],
  appServers: ['app_server'],
  kubeServers: ['kube_server'],
  tokens: ['token'],
  accessRequests: ['access_request'],
  billing: ['billing'],
  lock: ['lock'],
  plugins: ['plugin'],
  integrations: ['integration'],
  dbServers: ['db_server'],
  db: ['db'],
  desktops: ['windows_desktop'],
  connectionDiagnostic: ['connection_diagnostic'],
  nodes: ['node'],
  license: ['license'],
  download: ['download'],
  deviceTrust: ['device'],
  assist: ['assistant'],
  samlIdpServiceProvider: ['saml_idp_service_provider'],
  bots: ['bot'],
};

/**
 * The console's ACL for a role set. It says what MIGHT be allowed (a `where` clause that needs the
 * resource counts as possible); the server still checks each resource. Listing infrastructure
 * needs no rule: `allow` labels for a kind grant list+read on it (see `accessKinds`).
 */
export function userAcl(set: RoleSet): UserAcl {
  const acl = emptyAcl();
  for (const area of aclAreas) {
    const can = (verb: string) => aclAreaKinds[area].some((kind) => set.guessRule(kind, verb));
    Object.assign(acl[area], {
      list: can('list'),
      read: can('read') || can('readnosecrets'),
      edit: can('update'),
      create: can('create'),
      remove: can('delete'),
    });
  }
  acl.integrations.use = aclAreaKinds.integrations.some((kind) => set.guessRule(kind, 'use'));
  const options = set.options();
  acl.clipboardSharingEnabled = options.desktopClipboard;
  acl.desktopSessionRecording = options.recordSession.desktop;
  acl.directorySharing = options.desktopDirectorySharing;
  return acl;
}
