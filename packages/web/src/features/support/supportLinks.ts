import { docsPath } from '@postern/contracts';

/** The 'Resources' list on Help & Support: Postern's own docs, served by the proxy. */
export interface SupportLink {
  title: string;
  href: string;
}

const doc = (file: string) => `${docsPath}/${file}`;

export const supportLinks: readonly SupportLink[] = [
  { title: 'Servers: adding hosts, join tokens and the install script', href: doc('nodes.md') },
  { title: 'Agents and the reverse tunnel', href: doc('agents.md') },
  { title: 'Signing in from the command line (postern login)', href: doc('cli-login.md') },
  { title: 'Using ssh, scp and sftp through the proxy', href: doc('ssh-proxy.md') },
  { title: 'Roles, users and locks', href: doc('rbac.md') },
  { title: 'Single sign-on', href: doc('sso.md') },
  { title: 'Session recordings', href: doc('recordings.md') },
  { title: 'File transfer', href: doc('file-transfer.md') },
  { title: 'Configuration', href: doc('configuration.md') },
];
