import type { RoleItem } from '@postern/contracts';

export const devRoleYaml = `kind: role
version: v7
metadata:
  name: dev
  description: Developers
  revision: "41"
spec:
  allow:
    logins: [ubuntu]
    node_labels:
      env: dev
  deny: {}
  options:
    max_session_ttl: 8h
`;

/** `GET /v1/webapi/roles` as the server sends it. */
export const roleFixtures: RoleItem[] = [
  {
    id: 'role:editor',
    kind: 'role',
    name: 'editor',
    description: 'Manage users, roles, connectors, locks and cluster configuration',
    content: 'kind: role\nversion: v7\nmetadata:\n  name: editor\n',
  },
  { id: 'role:dev', kind: 'role', name: 'dev', description: 'Developers', content: devRoleYaml },
  {
    id: 'role:access',
    kind: 'role',
    name: 'access',
    description: 'Connect to servers, apps, databases, Kubernetes and desktops',
    content: 'kind: role\nversion: v7\nmetadata:\n  name: access\n',
  },
];
