import type { Duplex } from 'node:stream';
import type { Client, ClientChannel, ServerChannel, TcpipRequestInfo } from 'ssh2';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import { Moderation } from '../../../modules/sessions/moderation.js';
import type { InnerLogin } from './session-channel.js';

/**
 * `ssh -L` and `ssh -R` through the proxy: the client asks the "node" for a direct-tcpip channel
 * (or to listen), and the proxy does the same on its own connection to the real node, so the
 * connection starts (or is taken) there, as with OpenSSH. Allowed only when a role grants
 * port_forwarding. One node connection serves every forward of an inner connection.
 */
export class PortForwarder {
  private client: Promise<Client> | undefined;
  /** Node connections whose incoming remote-forward connections are relayed already. */
  private readonly relaying = new WeakSet<Client>();

  constructor(private readonly login: InnerLogin) {}

  async forward(
    info: TcpipRequestInfo,
    accept: () => ServerChannel,
    reject: () => void,
  ): Promise<void> {
    const fields = this.auditFields(`${info.destIP}:${info.destPort}`);
    const refused = this.refusal();
    if (refused) {
      emitAuditInBackground(this.login.audit, 'T3003E', { ...fields, error: refused });
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
      joinChannels(channel, remote);
      emitAuditInBackground(this.login.audit, 'T3003I', fields);
    } catch (error) {
      emitAuditInBackground(this.login.audit, 'T3003E', {
        ...fields,
        error: (error as Error).message,
      });
      reject();
    }
  }

  /**
   * `ssh -R`: the proxy asks the real node to listen (its sshd's own rules apply: GatewayPorts,
   * AllowTcpForwarding), and each connection the node takes there comes back to the client as a
   * forwarded-tcpip channel, as with OpenSSH. Allowed when `-L` is; audited per connection.
   */
  async listen(
    info: { bindAddr: string; bindPort: number },
    accept: ((port?: number) => void) | undefined,
    reject: (() => void) | undefined,
  ): Promise<void> {
    const listening = this.auditFields(`${info.bindAddr}:${info.bindPort}`);
    const refused = this.refusal();
    if (refused) {
      emitAuditInBackground(this.login.audit, 'T3003E', { ...listening, error: refused });
      return reject?.();
    }
    try {
      const client = await this.connect();
      this.relayIncoming(client);
      const port = await new Promise<number>((resolve, fail) =>
        client.forwardIn(info.bindAddr, info.bindPort, (error, bound) =>
          error ? fail(error) : resolve(bound),
        ),
      );
      // The port is told only when the client let the node choose it (`-R 0:…`).
      accept?.(info.bindPort === 0 ? port : undefined);
    } catch (error) {
      emitAuditInBackground(this.login.audit, 'T3003E', {
        ...listening,
        error: (error as Error).message,
      });
      reject?.();
    }
  }

  /** The client's `cancel-tcpip-forward`: the node stops listening there. */
  async unlisten(
    info: { bindAddr: string; bindPort: number },
    accept: (() => void) | undefined,
    reject: (() => void) | undefined,
  ): Promise<void> {
    // No forward was ever asked for: nothing listens on the node, and no need to dial it.
    if (!this.client) return reject?.();
    try {
      const client = await this.connect();
      await new Promise<void>((resolve, fail) =>
        client.unforwardIn(info.bindAddr, info.bindPort, (error) =>
          error ? fail(error) : resolve(),
        ),
      );
      accept?.();
    } catch {
      reject?.();
    }
  }

  close(): void {
    void this.client?.then(
      (client) => client.end(),
      () => undefined,
    );
  }

  /** Why port forwarding is refused to this login, if it is. */
  private refusal(): string | undefined {
    if (Moderation.of(this.login.requester, 'ssh').required) {
      return 'port forwarding is not allowed in moderated sessions';
    }
    if (!this.login.reach.options.portForwarding)
      return 'port forwarding is not allowed by your roles';
    return undefined;
  }

  private auditFields(local: string) {
    const { login } = this;
    return {
      user: login.requester.user,
      login: login.reach.login,
      server_id: login.reach.node.id,
      server_hostname: login.reach.node.hostname,
      'addr.remote': login.remoteAddr,
      'addr.local': local,
    };
  }

  /** Connections the node took on a remote forward's port, each sent back to the client. */
  private relayIncoming(client: Client): void {
    if (this.relaying.has(client)) return;
    this.relaying.add(client);
    client.on('tcp connection', (details, acceptIncoming, rejectIncoming) => {
      const fields = {
        ...this.auditFields(`${details.destIP}:${details.destPort}`),
        'addr.peer': `${details.srcIP}:${details.srcPort}`,
      };
      this.login.connection.forwardOut(
        details.destIP,
        details.destPort,
        details.srcIP,
        details.srcPort,
        (error, channel) => {
          if (error) {
            emitAuditInBackground(this.login.audit, 'T3003E', { ...fields, error: error.message });
            return rejectIncoming();
          }
          joinChannels(channel, acceptIncoming());
          emitAuditInBackground(this.login.audit, 'T3003I', fields);
        },
      );
    });
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

/** Two channels as one connection: bytes both ways, and either closing closes the other. */
function joinChannels(one: Duplex & { close(): void }, other: Duplex & { close(): void }): void {
  one.pipe(other).pipe(one);
  one.on('close', () => other.close());
  other.on('close', () => one.close());
}
