import { describe, expect, it } from 'vitest';
import { deriveFeatureFlags, featureFlagNames, type FeatureFlags } from './featureFlags';
import { features, type Feature } from './features';
import { buildNavigation, landingPath } from './navItems';
import { aclWith, presetAcls } from '../test/userContexts';
import { aclAreas } from '@postern/contracts';

const settings = { assistEnabled: true, isDashboard: true, isUsageBasedBilling: false };
const allFlags = deriveFeatureFlags(
  aclWith(Object.fromEntries(aclAreas.map((area) => [area, 'all' as const]))),
  settings,
);
const noFlags = Object.fromEntries(featureFlagNames.map((f) => [f, false])) as FeatureFlags;
const page = features.find((f) => f.page)?.page;
const topMenuTitles = ['Account Settings', 'Console Settings', 'Help & Support'];

describe('buildNavigation with this build’s registry', () => {
  it('shows only implemented features: Resources, Servers, Applications, Kubernetes, Databases, Desktops, Active Sessions, Access Requests, Assist, Users, Roles, Auth Connectors, Locks, Bots, Join Tokens, Enroll New Resource, Integrations, Session Recordings, Audit Log, Clusters, Trusted Clusters, Account, Settings and Help', () => {
    const nav = buildNavigation(features, allFlags, 'root');
    expect(nav.sideNav.resources).toEqual([
      {
        id: 'unifiedResources',
        title: 'Resources',
        to: '/web/cluster/root/resources',
        exact: true,
        landing: false,
      },
      { id: 'servers', title: 'Servers', to: '/web/cluster/root/nodes', exact: true },
      { id: 'applications', title: 'Applications', to: '/web/cluster/root/apps', exact: true },
      { id: 'kubernetes', title: 'Kubernetes', to: '/web/cluster/root/kubernetes', exact: true },
      { id: 'databases', title: 'Databases', to: '/web/cluster/root/databases', exact: true },
      { id: 'desktops', title: 'Desktops', to: '/web/cluster/root/desktops', exact: true },
      {
        id: 'activeSessions',
        title: 'Active Sessions',
        to: '/web/cluster/root/sessions',
        exact: true,
      },
      { id: 'accessRequests', title: 'Access Requests', to: '/web/requests', exact: true },
      { id: 'assist', title: 'Assist', to: '/web/assist', exact: false },
    ]);
    expect(nav.sideNav.management).toEqual([
      {
        section: 'Access',
        items: [
          { id: 'users', title: 'Manage Users', to: '/web/users', exact: true },
          { id: 'roles', title: 'Manage Roles', to: '/web/roles', exact: true },
          { id: 'authConnectors', title: 'Manage Auth Connectors', to: '/web/sso', exact: false },
          {
            id: 'locks',
            title: 'Manage Session & Identity Locks',
            to: '/web/locks',
            exact: true,
          },
          { id: 'bots', title: 'Manage Bots', to: '/web/bots', exact: true },
          { id: 'joinTokens', title: 'Join Tokens', to: '/web/tokens', exact: true },
          { id: 'discover', title: 'Enroll New Resource', to: '/web/discover', exact: true },
          {
            id: 'integrations',
            title: 'Manage Integrations',
            to: '/web/integrations',
            exact: true,
          },
          {
            id: 'integrationEnroll',
            title: 'Enroll New Integration',
            to: '/web/integrations/new',
            exact: false,
          },
        ],
      },
      {
        section: 'Activity',
        items: [
          {
            id: 'recordings',
            title: 'Session Recordings',
            to: '/web/cluster/root/recordings',
            exact: true,
          },
          { id: 'audit', title: 'Audit Log', to: '/web/cluster/root/audit', exact: true },
        ],
      },
      {
        section: 'Clusters',
        items: [
          { id: 'clusters', title: 'Manage Clusters', to: '/web/clusters', exact: false },
          { id: 'trust', title: 'Trusted Clusters', to: '/web/trust', exact: true },
        ],
      },
    ]);
    expect(nav.topNav).toEqual([
      { id: 'Resources', title: 'Resources', to: '/web/cluster/root/nodes', exact: false },
      { id: 'Management', title: 'Management', to: '/web/users', exact: false },
    ]);
    expect(nav.topMenu).toEqual([
      { id: 'account', title: 'Account Settings', to: '/web/account', exact: true },
      { id: 'settings', title: 'Console Settings', to: '/web/settings', exact: true },
      { id: 'support', title: 'Help & Support', to: '/web/support', exact: true },
    ]);
    expect(landingPath(nav)).toBe('/web/cluster/root/nodes');
  });

  it.each([
    [
      'editor',
      [
        'Manage Users',
        'Manage Roles',
        'Manage Auth Connectors',
        'Manage Session & Identity Locks',
        'Manage Bots',
        'Join Tokens',
        'Enroll New Resource',
        'Manage Integrations',
        'Enroll New Integration',
        'Manage Clusters',
        'Trusted Clusters',
      ],
      '/web/users',
    ],
    [
      'auditor',
      ['Active Sessions', 'Session Recordings', 'Audit Log'],
      '/web/cluster/root/sessions',
    ],
    // Recordings too: the server lists them only the sessions they took part in.
    [
      'access',
      [
        // Every kind in one list, first; `/web` still lands on Servers (the spec fixes it).
        'Resources',
        'Servers',
        'Applications',
        'Kubernetes',
        'Databases',
        'Desktops',
        'Active Sessions',
        // Spec §6: listing agents is enough to open Enroll New Resource, which then says that
        // adding one needs the right to create join tokens.
        'Enroll New Resource',
        'Session Recordings',
      ],
      '/web/cluster/root/nodes',
    ],
  ] as const)('the %s preset sees %j and lands on %s', (preset, titles, landing) => {
    const nav = buildNavigation(features, deriveFeatureFlags(presetAcls[preset], settings), 'root');
    const shown = [...nav.sideNav.resources, ...nav.sideNav.management.flatMap((g) => g.items)].map(
      (i) => i.title,
    );
    expect(shown).toEqual(titles);
    expect(nav.topMenu.map((i) => i.title)).toEqual(topMenuTitles);
    expect(landingPath(nav)).toBe(landing);
  });

  it('lists Resources first to whoever may list one kind, but never lands on it', () => {
    for (const area of ['nodes', 'appServers', 'dbServers', 'kubeServers', 'desktops'] as const) {
      const nav = buildNavigation(
        features,
        deriveFeatureFlags(aclWith({ [area]: ['list'] }), settings),
        'root',
      );
      const [first, kind] = nav.sideNav.resources;
      expect(first).toMatchObject({ title: 'Resources', to: '/web/cluster/root/resources' });
      // `/web` and the Resources top-bar link go to the kind's own page, as before.
      expect(kind).toBeDefined();
      expect(landingPath(nav)).toBe(kind?.to);
      expect(nav.topNav[0]).toMatchObject({ id: 'Resources', to: kind?.to });
    }
    const none = buildNavigation(features, deriveFeatureFlags(aclWith({}), settings), 'root');
    expect(none.sideNav.resources.map((i) => i.title)).not.toContain('Resources');
  });

  it('hides flag-gated features without their flag, but keeps always-allowed menu items', () => {
    const nav = buildNavigation(features, noFlags, 'root');
    expect(nav.sideNav.management).toEqual([]);
    expect(nav.topNav).toEqual([]);
    expect(nav.topMenu.map((i) => i.title)).toEqual(topMenuTitles);
    expect(landingPath(nav)).toBe('/web/support');
  });

  it('lists every spec feature as data', () => {
    const titles = features.map((f) => f.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Servers',
        'Audit Log',
        'Trusted Clusters',
        'Create New Lock',
        'Account Settings',
      ]),
    );
    expect(features.find((f) => f.id === 'trust')?.flag).toBe('trustedClusters');
    expect(features.find((f) => f.id === 'clusters')?.flag).toBe('trustedClusters');
  });
});

describe('buildNavigation ordering (all features implemented)', () => {
  const everything: Feature[] = features.map((f) => ({ ...f, page }));

  it('puts Resources first, then Management by section, cluster links with the cluster id', () => {
    const nav = buildNavigation(everything, allFlags, 'east');
    expect(nav.sideNav.resources.map((i) => i.to)).toEqual([
      '/web/cluster/east/resources',
      '/web/cluster/east/nodes',
      '/web/cluster/east/apps',
      '/web/cluster/east/kubernetes',
      '/web/cluster/east/databases',
      '/web/cluster/east/desktops',
      '/web/cluster/east/sessions',
      '/web/requests',
      '/web/assist',
    ]);
    expect(nav.sideNav.management.map((g) => g.section)).toEqual([
      'Access',
      'Activity',
      'Clusters',
    ]);
    expect(nav.sideNav.management[0]?.items.map((i) => i.title)).not.toContain('Create New Lock');
    expect(nav.topNav.map((i) => [i.title, i.to])).toEqual([
      ['Resources', '/web/cluster/east/nodes'],
      ['Management', '/web/users'],
    ]);
    expect(nav.topMenu.map((i) => i.title)).toEqual(topMenuTitles);
  });
});
