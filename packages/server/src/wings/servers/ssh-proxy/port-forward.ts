import type { Client, ClientChannel, ServerChannel, TcpipRequestInfo } from 'ssh2';
import { moderationOf } from '../terminal/terminal.service.js';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { InnerLogin } from './session-channel.js';

/**
 * `ssh -L` through the proxy: the client asks the "node" for a direct-tcpip channel, and the
 * proxy opens the same channel on its own connection to the real node, so the connection starts
 * there, as with OpenSSH. Allowed only when a role grants port_forwarding. One node connection
 * serves every forward of an inner connection.
 */
export class PortForwarder {
  private client: Promise<Client> | undefined;

  constructor(private readonly login: InnerLogin) {}

  async forward(
    info: TcpipRequestInfo,
    accept: () => ServerChannel,
    reject: () => void,
  ): Promise<void> {
    const { login } = this;
    const fields = {
      user: login.requester.user,
      login: login.reach.login,
      server_id: login.reach.node.id,
      server_hostname: login.reach.node.hostname,
      'addr.remote': login.remoteAddr,
      'addr.local': `${info.destIP}:${info.destPort}`,
    };
    const moderated = moderationOf(login.requester).required;
    if (!login.reach.options.portForwarding || moderated) {
      emitAuditInBackground(login.audit, 'T3003E', {
        ...fields,
        error: moderated
          ? 'port forwarding is not allowed in moderated sessions'
          : 'port forwarding is not allowed by your roles',
      });
      return reject();
    }
    try {
      const client = await this.connect();
      const remote = await new Promise<ClientChannel>((resolve, fail) =>
        client.forwardOut(info.srcIP, info.srcPort, info.destIP, info.destPort, (error, stream) =>
          error ? fail(error) : resolve(stream),
        ),
      );
      const channel = accept();
      channel.pipe(remote).pipe(channel);
      channel.on('close', () => remote.close());
      remote.on('close', () => channel.close());
      emitAuditInBackground(login.audit, 'T3003I', fields);
    } catch (error) {
      emitAuditInBackground(login.audit, 'T3003E', { ...fields, error: (error as Error).message });
      reject();
    }
  }

  close(): void {
    void this.client?.then(
      (client) => client.end(),
      () => undefined,
    );
  }

  private connect(): Promise<Client> {
    const { login } = this;
    this.client ??= login.terminals.dial(login.requester, login.reach, {
      serverId: login.reach.node.id,
      login: login.reach.login,
      traceId: '',
      remoteAddr: login.remoteAddr,
    });
    // A failed dial is not kept: the next forward tries again.
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }
}
