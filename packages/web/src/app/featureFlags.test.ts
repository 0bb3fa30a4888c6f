import { aclAreas, emptyAcl, userContextSchema, type UserAcl } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { aclWith, presetAcls, userContextFixture } from '../test/userContexts';
import { deriveFeatureFlags, featureFlagNames, type FlagSettings } from './featureFlags';

const settings: FlagSettings = {
  assistEnabled: false,
  isDashboard: false,
  isUsageBasedBilling: false,
};

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
    ['joinTokens', { tokens: ['list'] }],
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

  it('unified resources come from list on any resource kind', () => {
    expect(trueFlags(emptyAcl())).not.toContain('unifiedResources');
    for (const area of ['nodes', 'appServers', 'dbServers', 'kubeServers', 'desktops'] as const) {
      expect(trueFlags(aclWith({ [area]: ['list'] }))).toContain('unifiedResources');
      expect(trueFlags(aclWith({ [area]: ['read', 'create', 'edit', 'remove'] }))).not.toContain(
        'unifiedResources',
      );
    }
    expect(trueFlags(aclWith({ users: ['list'], events: ['list'] }))).not.toContain(
      'unifiedResources',
    );
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

  it('opens discover with tokens.create or a way to list agents (spec §6: either)', () => {
    expect(trueFlags(aclWith({}))).not.toContain('discover');
    expect(trueFlags(aclWith({ tokens: ['create'] }))).toContain('discover');
    expect(trueFlags(aclWith({ nodes: ['list'] }))).toContain('discover');
    for (const area of ['appServers', 'dbServers', 'kubeServers', 'desktops'] as const) {
      expect(trueFlags(aclWith({ [area]: ['list'] }))).not.toContain('discover');
      expect(trueFlags(aclWith({ [area]: ['read', 'list'] }))).toContain('discover');
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
    const flags = trueFlags(everything(), { ...settings, isUsageBasedBilling: true });
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
    expect(flags).toEqual(expect.arrayContaining(['users', 'roles', 'locks', 'newLocks']));
    // Without usage-based billing the same ACL opens them.
    expect(trueFlags(everything())).toEqual(
      expect.arrayContaining(['authConnector', 'activeSessions', 'deviceTrust', 'premiumSupport']),
    );
  });

  it('with every verb on every area, every flag but the setting-bound ones is on', () => {
    const off = featureFlagNames.filter((f) => !deriveFeatureFlags(everything(), settings)[f]);
    expect(off.sort()).toEqual(['assist', 'downloadCenter']);
  });
});

/** An ACL allowing every verb on every area. */
function everything(): UserAcl {
  const acl = emptyAcl();
  for (const area of aclAreas) {
    Object.assign(acl[area], { list: true, read: true, edit: true, create: true, remove: true });
  }
  acl.integrations.use = true;
  return acl;
}

describe('feature flags from the user context of each preset role', () => {
  const admin = ['users', 'roles', 'locks', 'newLocks'];
  const flagsOf = (acl: UserAcl) => {
    // The fixture is what the server sends: it must pass the contract the console decodes with.
    const context = userContextSchema.parse(userContextFixture(acl));
    return trueFlags(context.userAcl);
  };

  it('editor sees users, roles and locks, and may create locks', () => {
    const flags = flagsOf(presetAcls.editor);
    expect(flags).toEqual(expect.arrayContaining(admin));
    expect(flags).not.toContain('audit');
    expect(flags).not.toContain('nodes');
  });

  it('auditor sees none of them: audit, recordings and active sessions only', () => {
    const flags = flagsOf(presetAcls.auditor);
    for (const flag of admin) expect(flags).not.toContain(flag);
    expect(flags).toEqual(['activeSessions', 'audit', 'premiumSupport', 'recordings']);
  });

  it('access sees none of them: infrastructure and its own sessions', () => {
    const flags = flagsOf(presetAcls.access);
    for (const flag of admin) expect(flags).not.toContain(flag);
    expect(flags).toEqual(
      expect.arrayContaining([
        'unifiedResources',
        'nodes',
        'applications',
        'databases',
        'kubernetes',
        'desktops',
      ]),
    );
  });
});
