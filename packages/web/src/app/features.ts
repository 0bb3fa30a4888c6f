import type { ComponentType, LazyExoticComponent } from 'react';
import type { FeatureFlag } from './featureFlags';
import type { RouteName } from './routes';
import {
  AccountPage,
  AccountPasswordPage,
  AccountTwoFactorPage,
  AppLauncherPage,
  AppsPage,
  AssistPage,
  AuditPage,
  ClustersPage,
  ConnectorsPage,
  ConsolePage,
  DatabaseConsolePage,
  DatabasesPage,
  DesktopSessionPage,
  DesktopsPage,
  DiscoverPage,
  EnrollIntegrationPage,
  HeadlessPage,
  IntegrationsPage,
  JoinTokensPage,
  KubeExecPage,
  KubernetesPage,
  LocksPage,
  BotsPage,
  NewLockPage,
  NewRequestPage,
  NodesPage,
  PlayerPage,
  RecordingsPage,
  RequestPage,
  RequestsPage,
  ResourcesPage,
  RolesPage,
  SessionsPage,
  SettingsPage,
  SupportPage,
  TrustedClustersPage,
  UsersPage,
} from './pages';

/**
 * The feature registry (spec §2 feature table). Navigation and page routes are built from this
 * list, so adding a page is one entry here, its lazy import in pages.ts and its folder under src/features. Entries without a
 * `page` are not in this build yet: they stay here as data, are left out of the navigation, and
 * their paths fall through to 404.
 */
export type Category = 'Resources' | 'Management';
export type Section = 'Access' | 'Activity' | 'Billing' | 'Clusters';

export const categories: readonly Category[] = ['Resources', 'Management'];
export const sections: readonly Section[] = ['Access', 'Activity', 'Billing', 'Clusters'];

export type Placement =
  | { nav: 'side'; category: 'Resources' }
  | { nav: 'side'; category: 'Management'; section: Section }
  /** The user menu in the top bar. */
  | { nav: 'topMenu' }
  /** Routed but never listed (Create New Lock). */
  | { nav: 'none' };

export interface Feature {
  id: string;
  title: string;
  route: RouteName;
  placement: Placement;
  /** The ACL-derived flag that must be true; 'always' for items open to every signed-in user. */
  flag: FeatureFlag | 'always';
  /** Present when the page exists in this build. */
  page?: LazyExoticComponent<ComponentType>;
  /**
   * false: listed, but never where `/web` or its category's top-bar link lands (the spec fixes
   * those on the first of the other items).
   */
  landing?: false;
}

const resources = { nav: 'side', category: 'Resources' } as const;
const management = (section: Section) =>
  ({ nav: 'side', category: 'Management', section }) as const;

/**
 * The terminal console (full page, spec §2). Its routes are open to every signed-in user because
 * it serves two flags at once: the page itself shows Access Denied without `nodes` or
 * `activeSessions`, and its Servers tab needs `nodes`. One flag per route would unmount the page,
 * and close every terminal, when its URL moves from a joined session to the Servers tab.
 */
const consoleRoutes: readonly RouteName[] = [
  'console',
  'consoleNodes',
  'consoleConnect',
  'consoleSession',
];

export const features: readonly Feature[] = [
  // Every kind in one list (the reference's default view since its v14); `/web` still lands on
  // the first kind's own page.
  {
    id: 'unifiedResources',
    title: 'Resources',
    route: 'clusterResources',
    placement: resources,
    flag: 'unifiedResources',
    page: ResourcesPage,
    landing: false,
  },
  {
    id: 'servers',
    title: 'Servers',
    route: 'clusterNodes',
    placement: resources,
    flag: 'nodes',
    page: NodesPage,
  },
  {
    id: 'applications',
    title: 'Applications',
    route: 'clusterApps',
    placement: resources,
    flag: 'applications',
    page: AppsPage,
  },
  {
    id: 'kubernetes',
    title: 'Kubernetes',
    route: 'clusterKubernetes',
    placement: resources,
    flag: 'kubernetes',
    page: KubernetesPage,
  },
  // Exec in browser (full page), opened from a cluster's Connect in a new browser tab.
  {
    id: 'kubeExec',
    title: 'Kubernetes Exec',
    route: 'kubeExec',
    placement: { nav: 'none' },
    flag: 'kubernetes',
    page: KubeExecPage,
  },
  {
    id: 'databases',
    title: 'Databases',
    route: 'clusterDatabases',
    placement: resources,
    flag: 'databases',
    page: DatabasesPage,
  },
  // The SQL console (full page), opened from a database's Connect in a new browser tab.
  {
    id: 'databaseConsole',
    title: 'SQL Console',
    route: 'databaseConsole',
    placement: { nav: 'none' },
    flag: 'databases',
    page: DatabaseConsolePage,
  },
  {
    id: 'desktops',
    title: 'Desktops',
    route: 'clusterDesktops',
    placement: resources,
    flag: 'desktops',
    page: DesktopsPage,
  },
  // A desktop session (full page), opened from a desktop's Connect in a new browser tab.
  {
    id: 'desktopSession',
    title: 'Desktop Session',
    route: 'desktopSession',
    placement: { nav: 'none' },
    flag: 'desktops',
    page: DesktopSessionPage,
  },
  {
    id: 'activeSessions',
    title: 'Active Sessions',
    route: 'clusterSessions',
    placement: resources,
    flag: 'activeSessions',
    page: SessionsPage,
  },
  // Access requests (docs/access-requests.md): the list, a new request, one request's screen.
  {
    id: 'accessRequests',
    title: 'Access Requests',
    route: 'accessRequests',
    placement: resources,
    flag: 'accessRequests',
    page: RequestsPage,
  },
  {
    id: 'newAccessRequest',
    title: 'New Access Request',
    route: 'newAccessRequest',
    placement: { nav: 'none' },
    flag: 'newAccessRequest',
    page: NewRequestPage,
  },
  {
    id: 'accessRequest',
    title: 'Access Request',
    route: 'accessRequest',
    placement: { nav: 'none' },
    flag: 'accessRequests',
    page: RequestPage,
  },
  // The assistant (docs/assist.md): one route, with or without an open conversation.
  {
    id: 'assist',
    title: 'Assist',
    route: 'assist',
    placement: resources,
    flag: 'assist',
    page: AssistPage,
  },
  {
    id: 'users',
    title: 'Manage Users',
    route: 'users',
    placement: management('Access'),
    flag: 'users',
    page: UsersPage,
  },
  {
    id: 'roles',
    title: 'Manage Roles',
    route: 'roles',
    placement: management('Access'),
    flag: 'roles',
    page: RolesPage,
  },
  {
    id: 'authConnectors',
    title: 'Manage Auth Connectors',
    route: 'sso',
    placement: management('Access'),
    flag: 'authConnector',
    page: ConnectorsPage,
  },
  {
    id: 'locks',
    title: 'Manage Session & Identity Locks',
    route: 'locks',
    placement: management('Access'),
    flag: 'locks',
    page: LocksPage,
  },
  {
    id: 'bots',
    title: 'Manage Bots',
    route: 'bots',
    placement: management('Access'),
    flag: 'bots',
    page: BotsPage,
  },
  {
    id: 'joinTokens',
    title: 'Join Tokens',
    route: 'tokens',
    placement: management('Access'),
    flag: 'joinTokens',
    page: JoinTokensPage,
  },
  {
    id: 'newLock',
    title: 'Create New Lock',
    route: 'newLock',
    placement: { nav: 'none' },
    flag: 'newLocks',
    page: NewLockPage,
  },
  {
    id: 'discover',
    title: 'Enroll New Resource',
    route: 'discover',
    placement: management('Access'),
    flag: 'discover',
    page: DiscoverPage,
  },
  {
    id: 'integrations',
    title: 'Manage Integrations',
    route: 'integrations',
    placement: management('Access'),
    flag: 'integrations',
    page: IntegrationsPage,
  },
  {
    id: 'integrationEnroll',
    title: 'Enroll New Integration',
    route: 'integrationEnroll',
    placement: management('Access'),
    // Spec §6: integrations create, or plugins create (the reference's plugin tiles).
    flag: 'enrollIntegrationsOrPlugins',
    page: EnrollIntegrationPage,
  },
  {
    id: 'recordings',
    title: 'Session Recordings',
    route: 'clusterRecordings',
    placement: management('Activity'),
    flag: 'recordings',
    page: RecordingsPage,
  },
  {
    id: 'audit',
    title: 'Audit Log',
    route: 'clusterAudit',
    placement: management('Activity'),
    flag: 'audit',
    page: AuditPage,
  },
  {
    id: 'clusters',
    title: 'Manage Clusters',
    route: 'clusters',
    placement: management('Clusters'),
    flag: 'trustedClusters',
    page: ClustersPage,
  },
  {
    id: 'trust',
    title: 'Trusted Clusters',
    route: 'trust',
    placement: management('Clusters'),
    flag: 'trustedClusters',
    page: TrustedClustersPage,
  },
  {
    id: 'account',
    title: 'Account Settings',
    route: 'account',
    placement: { nav: 'topMenu' },
    flag: 'always',
    page: AccountPage,
  },
  // The two parts of Account Settings have their own paths (spec §2), reached from its page.
  {
    id: 'accountPassword',
    title: 'Account Settings',
    route: 'accountPassword',
    placement: { nav: 'none' },
    flag: 'always',
    page: AccountPasswordPage,
  },
  {
    id: 'accountTwoFactor',
    title: 'Account Settings',
    route: 'accountMfaDevices',
    placement: { nav: 'none' },
    flag: 'always',
    page: AccountTwoFactorPage,
  },
  // The console's own settings (spec §2 /web/settings), kept in the browser: open to everyone.
  {
    id: 'settings',
    title: 'Console Settings',
    route: 'settings',
    placement: { nav: 'topMenu' },
    flag: 'always',
    page: SettingsPage,
  },
  {
    id: 'support',
    title: 'Help & Support',
    route: 'support',
    placement: { nav: 'topMenu' },
    flag: 'always',
    page: SupportPage,
  },
  // The session player, opened from a recording in the list.
  {
    id: 'player',
    title: 'Session Player',
    route: 'player',
    placement: { nav: 'none' },
    flag: 'recordings',
    page: PlayerPage,
  },
  // A CLI's headless login asks the signed-in user to approve it here (docs/cli-login.md).
  {
    id: 'headless',
    title: 'Headless Login',
    route: 'headlessSso',
    placement: { nav: 'none' },
    flag: 'always',
    page: HeadlessPage,
  },
  // The app launcher (full page), opened from an app's Launch link. Open to every signed-in user:
  // whether they may reach the app is the server's answer to the launch, not the list's flag.
  {
    id: 'appLauncher',
    title: 'Application Launcher',
    route: 'appLauncher',
    placement: { nav: 'none' },
    flag: 'always',
    page: AppLauncherPage,
  },
  ...consoleRoutes.map((route): Feature => ({
    id: route,
    title: 'Console',
    route,
    placement: { nav: 'none' },
    flag: 'always',
    page: ConsolePage,
  })),
];

export const isImplemented = (
  f: Feature,
): f is Feature & { page: LazyExoticComponent<ComponentType> } => f.page !== undefined;
