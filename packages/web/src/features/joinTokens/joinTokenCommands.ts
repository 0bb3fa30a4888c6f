import type { JoinTokenRole } from '@postern/contracts';
import { enrollCommand } from '../discover/enrollCommand';
import { emptyEnrollInput } from '../discover/enrollInput';
import type { ProxyAddress } from '../nodes/NodesView';

export interface JoinCommand {
  id: 'agent' | 'openssh';
  /** What running it does, and where. */
  title: string;
  command: string;
}

export interface JoinCommandsOptions {
  roles: readonly JoinTokenRole[];
  /** The join token's secret. */
  token: string;
  proxy: ProxyAddress;
  /** The proxy serves its embedded self-signed certificate (see enrollCommand). */
  selfSigned: boolean;
}

/**
 * The commands a new token is used with, as Enroll New Resource writes them (`enrollCommand`),
 * so the two never drift apart: the agent, which any of these roles lets join (it serves its
 * host's SSH, and what its flags add), and, for a Node token, the OpenSSH host's install script.
 * The app, database and desktop install links need a name and an address this page does not
 * ask for: `agentFlags` says what to add to the agent instead.
 */
export function joinTokenCommands(options: JoinCommandsOptions): JoinCommand[] {
  const { roles, token, proxy, selfSigned } = options;
  const command = (kind: 'server' | 'openssh') =>
    enrollCommand({ kind, input: emptyEnrollInput, token, proxy, selfSigned });
  const commands: JoinCommand[] = [];
  if (roles.some((role) => role !== 'Trusted_cluster')) {
    commands.push({
      id: 'agent',
      title: 'Join a host with the Postern agent (as root, to serve any local login)',
      command: command('server'),
    });
  }
  if (roles.includes('Node')) {
    commands.push({
      id: 'openssh',
      title: 'Make an OpenSSH host join without an agent (the install script, as root)',
      command: command('openssh'),
    });
  }
  return commands;
}

/** What the agent is told to serve for each role beyond its host's SSH (docs/agents.md). */
const flagsByRole: Partial<Record<JoinTokenRole, { flag: string; what: string }>> = {
  App: { flag: '--app NAME=URI', what: 'an application' },
  Db: { flag: '--db NAME=URI', what: 'a database' },
  Kube: { flag: '--kube NAME --kubeconfig PATH', what: 'a Kubernetes cluster' },
  WindowsDesktop: {
    flag: "--desktop 'NAME=vnc://HOST:PORT?password_file=FILE'",
    what: 'a VNC desktop',
  },
};

/** The agent flags the token's roles call for, each with what it serves. */
export function agentFlags(roles: readonly JoinTokenRole[]): { flag: string; what: string }[] {
  return roles.flatMap((role) => flagsByRole[role] ?? []);
}
