import { emptyAcl, type AclArea, type UserAcl } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { deriveFeatureFlags, featureFlagNames, type FlagSettings } from './featureFlags';
import { provisionalAclUntilUserContext } from './provisionalAcl';

const settings: FlagSettings = {
  assistEnabled: false,
  isDashboard: false,
  isUsageBasedBilling: false,
};

/** An ACL granting exactly the listed verbs. */
function aclWith(
  grants: Partial<Record<AclArea, ReadonlyArray<'list' | 'read' | 'edit' | 'create' | 'remove'>>>,
): UserAcl {
  const acl = emptyAcl();
  for (const [area, verbs] of Object.entries(grants) as [AclArea, string[]][]) {
    for (const verb of verbs) Object.assign(acl[area], { [verb]: true });
  }
  return acl;
}

const trueFlags = (acl: UserAcl, s: FlagSettings = settings) =>
  Object.entries(deriveFeatureFlags(acl, s))
    .filter(([, on]) => on)
    .map(([name]) => name)
    .sort();

describe('deriveFeatureFlags', () => {
  it('grants nothing but premium support for an empty ACL', () => {
    expect(trueFlags(emptyAcl())).toEqual(['premiumSupport']);
  });

  it.each([
    ['nodes', { nodes: ['list'] }],
    ['applications', { appServers: ['list'] }],
    ['kubernetes', { kubeServers: ['list'] }],
    ['databases', { dbServers: ['list'] }],
    ['desktops', { desktops: ['list'] }],
    ['activeSessions', { activeSessions: ['list'] }],
    ['users', { users: ['list'] }],
    ['roles', { roles: ['list'] }],
    ['authConnector', { authConnectors: ['list'] }],
    ['locks', { lock: ['list'] }],
    ['integrations', { integrations: ['list'] }],
    ['recordings', { recordedSessions: ['list'] }],
    ['audit', { events: ['list'] }],
    ['trustedClusters', { trustedClusters: ['list'] }],
    ['accessRequests', { accessRequests: ['list'] }],
    ['billing', { billing: ['list'] }],
    ['deviceTrust', { deviceTrust: ['list'] }],
  ] as const)('%s comes from its list verb', (flag, grants) => {
    expect(trueFlags(aclWith(grants))).toContain(flag);
    expect(trueFlags(emptyAcl())).not.toContain(flag);
  });

  it('needs both create and edit on lock for new locks', () => {
    expect(trueFlags(aclWith({ lock: ['create'] }))).not.toContain('newLocks');
    expect(trueFlags(aclWith({ lock: ['edit'] }))).not.toContain('newLocks');
    expect(trueFlags(aclWith({ lock: ['create', 'edit'] }))).toContain('newLocks');
  });

  it('enrolls integrations with integrations.create, plugins too with plugins.create', () => {
    expect(trueFlags(aclWith({ integrations: ['create'] }))).toEqual(
      expect.arrayContaining(['enrollIntegrations', 'enrollIntegrationsOrPlugins']),
    );
    const plugins = trueFlags(aclWith({ plugins: ['create'] }));
    expect(plugins).toContain('enrollIntegrationsOrPlugins');
    expect(plugins).not.toContain('enrollIntegrations');
  });

  it('opens discover with tokens.create plus a way to list agents', () => {
    expect(trueFlags(aclWith({ tokens: ['create'] }))).not.toContain('discover');
    expect(trueFlags(aclWith({ nodes: ['list'] }))).not.toContain('discover');
    expect(trueFlags(aclWith({ tokens: ['create'], nodes: ['list'] }))).toContain('discover');
    for (const area of ['appServers', 'dbServers', 'kubeServers', 'desktops'] as const) {
      expect(trueFlags(aclWith({ tokens: ['create'], [area]: ['list'] }))).not.toContain(
        'discover',
      );
      expect(trueFlags(aclWith({ tokens: ['create'], [area]: ['read', 'list'] }))).toContain(
        'discover',
      );
    }
  });

  it('new access requests come from accessRequests.create', () => {
    expect(trueFlags(aclWith({ accessRequests: ['create'] }))).toContain('newAccessRequest');
  });

  it('assist needs assist.list and the assistEnabled setting', () => {
    const acl = aclWith({ assist: ['list'] });
    expect(trueFlags(acl)).not.toContain('assist');
    expect(trueFlags(acl, { ...settings, assistEnabled: true })).toContain('assist');
  });

  it('the download centre needs a dashboard build and license read or download list', () => {
    const dashboard = { ...settings, isDashboard: true };
    expect(trueFlags(aclWith({ license: ['read'] }))).not.toContain('downloadCenter');
    expect(trueFlags(aclWith({ license: ['read'] }), dashboard)).toContain('downloadCenter');
    expect(trueFlags(aclWith({ download: ['list'] }), dashboard)).toContain('downloadCenter');
  });

  it('locks some features under usage-based billing', () => {
    const flags = trueFlags(provisionalAclUntilUserContext(), {
      ...settings,
      isUsageBasedBilling: true,
    });
    for (const locked of [
      'authConnector',
      'activeSessions',
      'accessRequests',
      'newAccessRequest',
      'deviceTrust',
      'premiumSupport',
    ]) {
      expect(flags).not.toContain(locked);
    }
    expect(flags).toContain('users');
  });
});

describe('provisionalAclUntilUserContext', () => {
  it('allows every verb on every area, so every flag but the setting-bound ones is on', () => {
    const acl = provisionalAclUntilUserContext();
    expect(acl.integrations.use).toBe(true);
    expect(acl.clipboardSharingEnabled).toBe(true);
    const off = featureFlagNames.filter((f) => !deriveFeatureFlags(acl, settings)[f]);
    expect(off.sort()).toEqual(['assist', 'downloadCenter']);
  });
});
