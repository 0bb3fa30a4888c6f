import { docsPath } from '@postern/contracts';

/** The 'Resources' list on Help & Support: Postern's own docs, served by the proxy. */
export interface SupportLink {
  title: string;
  href: string;
}

const doc = (file: string) => `${docsPath}/${file}`;

export const supportLinks: readonly SupportLink[] = [
  { title: 'Servers: adding hosts, join tokens and the install script', href: doc('nodes.md') },
  { title: 'Agents, the reverse tunnel and Enroll New Resource', href: doc('agents.md') },
  { title: 'Signing in from the command line (postern login)', href: doc('cli-login.md') },
  { title: 'Bots: machine identities for CI jobs and services', href: doc('bots.md') },
  { title: 'Using ssh, scp and sftp through the proxy', href: doc('ssh-proxy.md') },
  { title: 'File transfer', href: doc('file-transfer.md') },
  { title: 'Applications: web apps and TCP apps', href: doc('apps.md') },
  { title: 'Databases: PostgreSQL and MySQL/MariaDB', href: doc('databases.md') },
  { title: 'Kubernetes: kubectl and exec in the browser', href: doc('kubernetes.md') },
  { title: 'Desktops: VNC and RDP in the browser', href: doc('desktops.md') },
  { title: 'Roles, users and locks', href: doc('rbac.md') },
  { title: 'Access requests', href: doc('access-requests.md') },
  { title: 'The assistant: a chat that runs commands you approve', href: doc('assist.md') },
  { title: 'The Resources page: pins and requestable resources', href: doc('resources.md') },
  { title: 'Moderated sessions', href: doc('moderated-sessions.md') },
  { title: 'Single sign-on', href: doc('sso.md') },
  { title: 'Integrations: notifications for access requests', href: doc('integrations.md') },
  { title: 'Session recordings', href: doc('recordings.md') },
  { title: 'Tamper evidence of the audit log (postern verify)', href: doc('verify.md') },
  { title: 'The audit log from the command line: search and export', href: doc('audit.md') },
  { title: 'Configuration', href: doc('configuration.md') },
  {
    title: 'Cluster alerts: banners for everyone (postern alerts)',
    href: doc('cluster-alerts.md'),
  },
  { title: 'Trusted clusters: reaching a leaf from the root', href: doc('trusted-clusters.md') },
  { title: 'High availability', href: doc('high-availability.md') },
  { title: 'The terminal WebSocket protocol', href: doc('protocol.md') },
  { title: 'Architecture, for contributors', href: doc('ARCHITECTURE.md') },
];
