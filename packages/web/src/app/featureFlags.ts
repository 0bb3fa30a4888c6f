import type { Access, UserAcl } from '@postern/contracts';

/**
 * ACL → feature flags (spec §6). Flags only decide what the console shows; the server checks
 * every call on its own.
 */
export const featureFlagNames = [
  'unifiedResources',
  'nodes',
  'applications',
  'kubernetes',
  'databases',
  'desktops',
  'activeSessions',
  'users',
  'roles',
  'authConnector',
  'locks',
  'newLocks',
  'bots',
  'joinTokens',
  'discover',
  'integrations',
  'enrollIntegrations',
  'enrollIntegrationsOrPlugins',
  'recordings',
  'audit',
  'trustedClusters',
  'accessRequests',
  'newAccessRequest',
  'downloadCenter',
  'assist',
  'billing',
  'deviceTrust',
  'premiumSupport',
] as const;

export type FeatureFlag = (typeof featureFlagNames)[number];
export type FeatureFlags = Record<FeatureFlag, boolean>;

/** The client-config settings that take part in the flags. */
export interface FlagSettings {
  assistEnabled: boolean;
  isDashboard: boolean;
  isUsageBasedBilling: boolean;
}

const readAndList = (a: Access) => a.read && a.list;

/** Adding agents (spec §6): creating join tokens. */
export const canAddAgents = (acl: UserAcl) => acl.tokens.create;

/** Listing agents (spec §6): servers, or read and list on app, db, kube or desktop servers. */
export const canListAgents = (acl: UserAcl) =>
  acl.nodes.list ||
  readAndList(acl.appServers) ||
  readAndList(acl.dbServers) ||
  readAndList(acl.kubeServers) ||
  readAndList(acl.desktops);

export function deriveFeatureFlags(acl: UserAcl, settings: FlagSettings): FeatureFlags {
  // Under usage-based billing some features are locked whatever the ACL says (spec §6).
  const unlocked = !settings.isUsageBasedBilling;
  return {
    // The unified Resources list: any kind the user may list (the server lists only those).
    unifiedResources:
      acl.nodes.list ||
      acl.appServers.list ||
      acl.kubeServers.list ||
      acl.dbServers.list ||
      acl.desktops.list,
    nodes: acl.nodes.list,
    applications: acl.appServers.list,
    kubernetes: acl.kubeServers.list,
    databases: acl.dbServers.list,
    desktops: acl.desktops.list,
    activeSessions: unlocked && acl.activeSessions.list,
    users: acl.users.list,
    roles: acl.roles.list,
    authConnector: unlocked && acl.authConnectors.list,
    locks: acl.lock.list,
    newLocks: acl.lock.create && acl.lock.edit,
    // Manage Bots (the reference's newer `bots` area; not in the spec's feature list).
    bots: acl.bots.list,
    // Join Tokens: the live tokens, listed without their secrets.
    joinTokens: acl.tokens.list,
    // Spec §6: either right opens the page; it says what the missing one keeps out of reach.
    discover: canAddAgents(acl) || canListAgents(acl),
    integrations: acl.integrations.list,
    enrollIntegrations: acl.integrations.create,
    enrollIntegrationsOrPlugins: acl.plugins.create || acl.integrations.create,
    recordings: acl.recordedSessions.list,
    audit: acl.events.list,
    // One flag gates both Manage Clusters and Trusted Clusters.
    trustedClusters: acl.trustedClusters.list,
    accessRequests: unlocked && acl.accessRequests.list,
    newAccessRequest: unlocked && acl.accessRequests.create,
    downloadCenter: settings.isDashboard && (acl.license.read || acl.download.list),
    assist: settings.assistEnabled && acl.assist.list,
    billing: acl.billing.list,
    deviceTrust: unlocked && acl.deviceTrust.list,
    premiumSupport: unlocked,
  };
}
