import { z } from 'zod';

/**
 * The ACL areas of spec §3, in the order the spec lists them, then the reference's newer ones
 * that Postern has a page for (`bots`: Manage Bots).
 */
export const aclAreas = [
  'authConnectors',
  'trustedClusters',
  'roles',
  'recordedSessions',
  'activeSessions',
  'events',
  'users',
  'appServers',
  'kubeServers',
  'tokens',
  'accessRequests',
  'billing',
  'lock',
  'plugins',
  'integrations',
  'dbServers',
  'db',
  'desktops',
  'connectionDiagnostic',
  'nodes',
  'license',
  'download',
  'deviceTrust',
  'assist',
  'samlIdpServiceProvider',
  'bots',
] as const;
export type AclArea = (typeof aclAreas)[number];

/** Verbs every area carries; integrations also carry `use`. */
export const aclVerbs = ['list', 'read', 'edit', 'create', 'remove'] as const;
export type AclVerb = (typeof aclVerbs)[number];

export const accessSchema = z.object({
  list: z.boolean(),
  read: z.boolean(),
  edit: z.boolean(),
  create: z.boolean(),
  remove: z.boolean(),
});
export type Access = z.infer<typeof accessSchema>;

export type UserAcl = {
  [A in AclArea]: A extends 'integrations' ? Access & { use: boolean } : Access;
} & {
  clipboardSharingEnabled: boolean;
  desktopSessionRecording: boolean;
  directorySharing: boolean;
};

export const noAccess: Access = Object.freeze({
  list: false,
  read: false,
  edit: false,
  create: false,
  remove: false,
});

/** An ACL that grants nothing: what a console assumes before the user context arrives. */
export function emptyAcl(): UserAcl {
  const acl: Record<string, unknown> = {};
  for (const area of aclAreas) acl[area] = { ...noAccess };
  (acl.integrations as Record<string, boolean>).use = false;
  acl.clipboardSharingEnabled = true;
  acl.desktopSessionRecording = true;
  acl.directorySharing = true;
  return acl as UserAcl;
}
