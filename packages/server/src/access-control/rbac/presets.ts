import { presetRoleLabel, presetRoleNames, type PresetRoleName } from '@postern/contracts';
import type { Role, RoleConditions } from './role.schema.js';

/**
 * The preset roles, present from the first start (seeded if missing; an admin may edit them).
 *
 * - access: connect to infrastructure with the user's own traits (logins, Windows logins, database
 *   names and users, Kubernetes groups and users) on every labelled resource, see their own
 *   sessions, recorded and active, and use the assistant. No audit log: that is the auditor's.
 * - editor: manage the cluster's configuration (users, roles, connectors, trusted clusters, join
 *   tokens, locks, integrations, plugins, devices, settings…). No infrastructure and no audit.
 * - auditor: read the audit log, session recordings and active sessions. Nothing else.
 */
const all = ['list', 'read', 'create', 'update', 'delete'] as const;
const readOnly = ['list', 'read'] as const;
const everywhere = { '*': '*' };
const ownSessions = (kind: string) => ({
  resources: [kind],
  verbs: [...readOnly],
  where: `contains(${kind}.participants, user.metadata.name)`,
});

/** The admin resource kinds the editor manages. */
export const editorResourceKinds = [
  'user',
  'bot',
  'role',
  'auth_connector',
  'oidc',
  'saml',
  'github',
  'login_rule',
  'trusted_cluster',
  'remote_cluster',
  'token',
  'lock',
  'integration',
  'plugin',
  'device',
  'saml_idp_service_provider',
  'connection_diagnostic',
  'cluster_auth_preference',
  'cluster_networking_config',
  'session_recording_config',
  'ui_config',
  'billing',
] as const;

function preset(
  name: PresetRoleName,
  description: string,
  allow: RoleConditions,
  options = {},
): Role {
  return {
    kind: 'role',
    version: 'v7',
    metadata: { name, description, labels: { [presetRoleLabel]: 'preset' } },
    spec: { options: { max_session_ttl: '30h', ...options }, allow, deny: {} },
  };
}

const access = preset(
  'access',
  'Connect to servers, apps, databases, Kubernetes and desktops; see your own sessions',
  {
    logins: ['{{internal.logins}}'],
    node_labels: everywhere,
    app_labels: everywhere,
    db_labels: everywhere,
    db_names: ['{{internal.db_names}}'],
    db_users: ['{{internal.db_users}}'],
    kubernetes_labels: everywhere,
    kubernetes_groups: ['{{internal.kubernetes_groups}}'],
    kubernetes_users: ['{{internal.kubernetes_users}}'],
    kubernetes_resources: [{ kind: '*', namespace: '*', name: '*', verbs: ['*'] }],
    windows_desktop_labels: everywhere,
    windows_desktop_logins: ['{{internal.windows_logins}}'],
    rules: [
      ownSessions('session'),
      ownSessions('session_tracker'),
      // The assistant: each user's own conversations (docs/assist.md); commands it runs are
      // sessions on the servers above, under the same logins.
      { resources: ['assistant'], verbs: [...all] },
    ],
  },
  {
    forward_agent: true,
    port_forwarding: true,
    desktop_clipboard: true,
    desktop_directory_sharing: true,
    record_session: { default: 'best_effort', desktop: true },
  },
);

const editor = preset(
  'editor',
  'Manage users, roles, connectors, locks and cluster configuration',
  {
    rules: [
      { resources: [...editorResourceKinds], verbs: [...all] },
      { resources: ['integration'], verbs: ['use'] },
    ],
  },
);

const auditor = preset('auditor', 'Read the audit log, session recordings and active sessions', {
  rules: [{ resources: ['event', 'session', 'session_tracker'], verbs: [...readOnly] }],
});

const presets: Readonly<Record<PresetRoleName, Role>> = { access, editor, auditor };

/** Fresh copies, safe to store or change. */
export function presetRoles(): Role[] {
  return presetRoleNames.map((name) => structuredClone(presets[name]));
}

export function presetRole(name: PresetRoleName): Role {
  return structuredClone(presets[name]);
}

export const isPresetRoleName = (name: string): name is PresetRoleName =>
  (presetRoleNames as readonly string[]).includes(name);
