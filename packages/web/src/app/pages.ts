import { lazy, type ComponentType } from 'react';

/**
 * Every page of the console, each in a chunk of its own, loaded when its route is first opened.
 * React.lazy wants a default export, and pages use named ones: `page` picks the name.
 */
function page<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

export const ClustersPage = page(() => import('../features/clusters/ClustersPage'), 'ClustersPage');
export const UsersPage = page(() => import('../features/users/UsersPage'), 'UsersPage');
export const RolesPage = page(() => import('../features/roles/RolesPage'), 'RolesPage');
export const ConnectorsPage = page(
  () => import('../features/connectors/ConnectorsPage'),
  'ConnectorsPage',
);
export const TrustedClustersPage = page(
  () => import('../features/trustedClusters/TrustedClustersPage'),
  'TrustedClustersPage',
);
export const LocksPage = page(() => import('../features/locks/LocksPage'), 'LocksPage');
export const BotsPage = page(() => import('../features/bots/BotsPage'), 'BotsPage');
export const JoinTokensPage = page(
  () => import('../features/joinTokens/JoinTokensPage'),
  'JoinTokensPage',
);
export const AssistPage = page(() => import('../features/assist/AssistPage'), 'AssistPage');
export const NewLockPage = page(() => import('../features/locks/NewLockPage'), 'NewLockPage');
export const AuditPage = page(() => import('../features/audit/AuditPage'), 'AuditPage');
export const RecordingsPage = page(
  () => import('../features/recordings/RecordingsPage'),
  'RecordingsPage',
);
export const AccountPage = page(() => import('../features/account/AccountPage'), 'AccountPage');
export const AccountPasswordPage = page(
  () => import('../features/account/AccountPage'),
  'AccountPasswordPage',
);
export const AccountTwoFactorPage = page(
  () => import('../features/account/AccountPage'),
  'AccountTwoFactorPage',
);
export const ResourcesPage = page(
  () => import('../features/resources/ResourcesPage'),
  'ResourcesPage',
);
export const NodesPage = page(() => import('../features/nodes/NodesPage'), 'NodesPage');
export const AppsPage = page(() => import('../features/apps/AppsPage'), 'AppsPage');
export const AppLauncherPage = page(
  () => import('../features/apps/AppLauncherPage'),
  'AppLauncherPage',
);
export const KubernetesPage = page(
  () => import('../features/kubernetes/KubernetesPage'),
  'KubernetesPage',
);
export const KubeExecPage = page(
  () => import('../features/kubernetes/KubeExecPage'),
  'KubeExecPage',
);
export const DatabasesPage = page(
  () => import('../features/databases/DatabasesPage'),
  'DatabasesPage',
);
export const DatabaseConsolePage = page(
  () => import('../features/databases/DatabaseConsolePage'),
  'DatabaseConsolePage',
);
export const DesktopsPage = page(() => import('../features/desktops/DesktopsPage'), 'DesktopsPage');
export const DesktopSessionPage = page(
  () => import('../features/desktops/DesktopSessionPage'),
  'DesktopSessionPage',
);
export const SessionsPage = page(() => import('../features/sessions/SessionsPage'), 'SessionsPage');
// One lazy component for every console route, so moving between them keeps the page (and its
// terminal tabs) mounted.
export const ConsolePage = page(() => import('../features/console/ConsolePage'), 'ConsolePage');
export const PlayerPage = page(() => import('../features/player/PlayerPage'), 'PlayerPage');
export const HeadlessPage = page(() => import('../features/headless/HeadlessPage'), 'HeadlessPage');
export const RequestsPage = page(
  () => import('../features/accessRequests/RequestsPage'),
  'RequestsPage',
);
export const NewRequestPage = page(
  () => import('../features/accessRequests/NewRequestPage'),
  'NewRequestPage',
);
export const RequestPage = page(
  () => import('../features/accessRequests/RequestPage'),
  'RequestPage',
);
export const IntegrationsPage = page(
  () => import('../features/integrations/IntegrationsPage'),
  'IntegrationsPage',
);
export const EnrollIntegrationPage = page(
  () => import('../features/integrations/EnrollIntegrationPage'),
  'EnrollIntegrationPage',
);
export const SettingsPage = page(() => import('../features/settings/SettingsPage'), 'SettingsPage');
export const DiscoverPage = page(() => import('../features/discover/DiscoverPage'), 'DiscoverPage');
export const SupportPage = page(() => import('../features/support/SupportPage'), 'SupportPage');
