import { existsSync } from 'node:fs';

/** Where distributions install OpenSSH's sftp-server (Debian/Ubuntu, Fedora/RHEL, Arch/Alpine). */
export const sftpServerCandidates = [
  '/usr/lib/openssh/sftp-server',
  '/usr/libexec/openssh/sftp-server',
  '/usr/lib/ssh/sftp-server',
  '/usr/libexec/sftp-server',
];

/**
 * The sftp-server binary the node service runs for the `sftp` subsystem: the configured one, or
 * the first installed candidate. Undefined when there is none: the subsystem is then refused
 * (we do not speak SFTP ourselves; OpenSSH's server is audited and battle-tested).
 */
export function findSftpServer(configured?: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return sftpServerCandidates.find((candidate) => existsSync(candidate));
}
