import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { acceptProxied, TrustedProxies } from '../../../net/proxy-protocol.js';
import { sessionEndReasons } from '@postern/contracts';
import ssh2, { type Connection } from 'ssh2';
import { SemaphoreFullError, type BackendSemaphore } from '../../../backend/semaphore.js';
import { plainAddress, type ClusterCa } from '../../../ssh/ca.service.js';
import { disconnectWithReason } from '../../../ssh/disconnect.js';
import { CertifiedHostKeys } from '../../../ssh/host-certificate.js';
import {
  certificateCredential,
  type Credential,
} from '../../../access-control/access/credential-revocation.js';
import { emitAudit } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import { lockMessage, marksOf, type LockView } from '../../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { RecordingPolicy } from '../../../modules/sessions/session-recording.js';
import { resolveNodeName } from '../terminal/node-access.js';
import type { NodeDirectory, TerminalService } from '../terminal/terminal.service.js';
import type { ClusterSsh } from '../../../modules/trusted-clusters/cluster-ssh.js';
import { forwardToLeaf, rootUserHandler } from './cluster-hops.js';
import { limitInFlight } from './in-flight.js';
import { serveInnerConnection, type InnerTarget } from './inner-connection.js';
import { proxySessionRequester, serveProxySession, type SignedInUser } from './join-command.js';
import { loginAttempts } from './login-attempts.js';

export interface SshProxyDeps {
  ca: ClusterCa;
  /** The proxy's own Ed25519 host key (proxy-host-key.ts). */
  hostKey: { privateKeyPem: string; publicKey: string };
  /** Names clients reach the proxy by: its host certificate lists them. */
  principals: string[];
  /** `web-1.<cluster>` names `web-1`: the form `postern login`'s ssh_config matches. */
  clusterName: string;
  nodes: NodeDirectory;
  terminals: TerminalService;
  /** The user's current roles and traits as a RoleSet (watched users and roles). */
  requesterFor: (
    user: string,
    roles: string[],
    accessRequests?: string[],
  ) => {
    user: string;
    roles: string[];
    roleSet: RoleSet;
    traits: Record<string, string[]>;
    hasRecord: boolean;
  };
  /** Why a certificate no longer counts (its user's credentials changed since), or undefined. */
  credentialRevoked: (user: string, credential: Credential) => string | undefined;
  locks: LockView;
  audit: AuditStore;
  /** Where commands without a terminal are recorded; terminal sessions use the hub's. */
  recordings?: RecordingPolicy;
  now: () => number;
  log: (message: string, fields?: object) => void;
  /** How long a client has from connecting to being signed in (default 30 s). */
  loginGraceMs?: number;
  /** Balancers whose PROXY protocol header names the client (trusted_proxies). */
  trustedProxies?: TrustedProxies;
  /**
   * max_connections: a lease per signed-in connection, per user, shared by every proxy on the
   * same storage (absent: not limited).
   */
  connectionLeases?: BackendSemaphore;
  /** Trusted clusters: names under a leaf go through it, and a root's users come in (cluster-hops.ts). */
  clusterSsh?: ClusterSsh;
}

const closeGraceMs = 5_000;
/**
 * Like sshd's LoginGraceTime, shorter: our clients sign in with a certificate, no typing. A
 * socket that connects and dawdles (or never speaks) is cut, so idle sockets cannot pile up.
 */
const defaultLoginGraceMs = 30_000;
/** The proxy's host certificate is renewed when less than this is left of it. */
const hostCertificateTtlMs = 24 * 3600_000;

/**
 * The SSH listener (`ssh_addr`, :3023): stock OpenSSH clients use it as a jump host,
 * `ssh -J alice@proxy:3023 root@node`. The client logs in to the proxy as its Postern user with
 * the certificate `postern login` wrote, and asks for a channel to the node; the proxy does not
 * forward bytes to the node but ends that inner SSH connection itself (inner-connection.ts), so
 * RBAC, locks, recording, joining and audit are the browser's. docs/ssh-proxy.md.
 */
export class SshProxy {
  private readonly server: NetServer;
  private readonly connections = new Set<Connection>();
  private certificate: { line: string; renewAt: number } | undefined;
  private readonly stopServingRoots: () => void;

  constructor(private readonly deps: SshProxyDeps) {
    const trusted = deps.trustedProxies ?? new TrustedProxies([]);
    this.server = createServer((socket) =>
      acceptProxied(socket, trusted, (proxied) => this.accept(proxied)),
    );
    this.server.on('error', (error) => deps.log('ssh proxy error', { error: error.message }));
    const fromRoots = rootUserHandler(deps, (host, port, roleSet) =>
      this.resolveTarget(host, port, roleSet),
    );
    this.stopServingRoots = deps.clusterSsh?.serveRootUsers(fromRoots) ?? (() => undefined);
  }

  listen(host: string, port: number): Promise<{ port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve({ port: (this.server.address() as AddressInfo).port });
      });
    });
  }

  /** Stops listening and ends every connection, telling each client why. */
  async close(reason = sessionEndReasons.shutdown): Promise<void> {
    this.stopServingRoots();
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const ended = [...this.connections].map(
      (connection) =>
        new Promise<void>((resolve) => {
          connection.once('close', () => resolve());
          disconnectWithReason(connection, `Postern: ${reason}`);
          setTimeout(resolve, closeGraceMs).unref();
        }),
    );
    await Promise.all([stopped, ...ended]);
  }

  /** One ssh2 server per connection: its host keys sign that connection's key exchange. */
  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    const grace = setTimeout(() => socket.destroy(), this.deps.loginGraceMs ?? defaultLoginGraceMs);
    grace.unref();
    socket.once('close', () => clearTimeout(grace));
    // SFTP and keystrokes are small request/answer packets: Nagle's delay would stall them.
    socket.setNoDelay(true);
    const keys = new CertifiedHostKeys(this.deps.hostKey.privateKeyPem, this.hostCertificate());
    const remoteAddr = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`;
    const clientIp = plainAddress(socket.remoteAddress ?? '');
    const server = new ssh2.Server(
      { hostKeys: keys.hostKeys as string[], ident: 'Postern' },
      (connection, info) =>
        this.serve(connection, { remoteAddr, clientIp }, info.header.versions.software),
    );
    server.on('connection', (connection) => {
      keys.attach(connection);
      connection.once('ready', () => clearTimeout(grace));
    });
    server.injectSocket(socket);
  }

  private hostCertificate(): string {
    const now = this.deps.now();
    if (!this.certificate || now >= this.certificate.renewAt) {
      const line = this.deps.ca.issueHostCertificate({
        publicKey: this.deps.hostKey.publicKey,
        principals: this.deps.principals,
        ttlMs: hostCertificateTtlMs,
        hostId: 'postern-proxy',
      });
      this.certificate = { line, renewAt: now + hostCertificateTtlMs / 2 };
    }
    return this.certificate.line;
  }

  /** `software`: the client's, from its SSH identification ("OpenSSH_9.2p1"). */
  private serve(
    connection: Connection,
    { remoteAddr, clientIp }: { remoteAddr: string; clientIp: string },
    software: string,
  ): void {
    const { deps } = this;
    this.connections.add(connection);
    let lease: Promise<{ release(): Promise<void> } | undefined> | undefined;
    connection.on('close', () => {
      this.connections.delete(connection);
      void lease?.then((held) => held?.release());
    });
    connection.on('error', (error: Error) =>
      deps.log('ssh proxy connection error', { error: error.message }),
    );
    const { refuse, certified } = loginAttempts(connection, deps.log);
    let user: SignedInUser | undefined;

    connection.on('authentication', (ctx) => {
      const checked = certified(ctx, {
        userCaPublicKeys: () => [deps.ca.userCaPublicKey],
        userNameIs: 'user',
        lockedMessage: ({ user: name, roles, ...marks }) => {
          const lock = deps.locks.lockFor({ user: name, roles, ...marksOf(marks) });
          return lock ? lockMessage(lock) : undefined;
        },
        now: () => new Date(deps.now()),
        clientIp,
      });
      if (!checked) return;
      const { identity } = checked;
      // A user removed since the certificate was issued keeps no access (as for signed requests).
      const current = deps.requesterFor(identity.user, identity.roles, identity.accessRequests);
      if (!current.hasRecord) {
        return refuse(ctx, 'this user no longer exists', true);
      }
      const options = current.roleSet.options();
      if (options.pinSourceIp && !identity.pinnedIp) {
        const why =
          'your roles pin certificates to your address (pin_source_ip): run postern login';
        return refuse(ctx, why, true);
      }
      const revoked = deps.credentialRevoked(
        identity.user,
        certificateCredential(identity.validAfter),
      );
      if (revoked) return refuse(ctx, revoked, true);
      if (!checked.signed) return ctx.accept();
      const { roles, accessRequests, validAfter, validBefore, sessionMfaTargets } = identity;
      user = { name: identity.user, roles, accessRequests, validAfter, validBefore };
      if (sessionMfaTargets) user.sessionMfaTargets = sessionMfaTargets;
      if (identity.mfaDevice) user.mfaDevice = identity.mfaDevice;
      if (identity.sessionMfaDevice) user.sessionMfaDevice = identity.sessionMfaDevice;
      if (identity.botInstance) user.botInstance = identity.botInstance;
      const limit = options.maxConnections;
      if (!limit || !deps.connectionLeases || lease) return ctx.accept();
      const leases = deps.connectionLeases;
      lease = leases.acquire(identity.user, limit).then(
        (held) => {
          ctx.accept();
          return held;
        },
        async (error: unknown) => {
          const reason =
            error instanceof SemaphoreFullError
              ? `too many connections: max_connections allows ${limit} at a time`
              : 'cannot count your connections (max_connections) right now; try again';
          if (!(error instanceof SemaphoreFullError))
            deps.log('ssh proxy: connection lease failed', { error: String(error) });
          await emitAudit(deps.audit, 'T1006W', {
            user: identity.user,
            login: ctx.username,
            server_id: 'ssh proxy',
            reason,
            'addr.remote': remoteAddr,
          }).catch(() => undefined);
          user = undefined;
          lease = undefined; // a later attempt asks again
          refuse(ctx, reason, true);
          return undefined;
        },
      );
    });

    connection.on('ready', () => {
      if (!user) return connection.end();
      // max_sessions counts the sessions of every inner connection this client runs through us.
      const jump = { user: user.name, remoteAddr, clientIp, sessions: { open: 0 } };
      const { roleSet } = deps.requesterFor(user.name, user.roles, user.accessRequests);
      const signedIn = user;
      connection.on('tcpip', (accept, reject, info) => {
        const target = this.resolveTarget(info.destIP, info.destPort, roleSet);
        const leaf = target ? undefined : deps.clusterSsh?.leafOf(info.destIP);
        if (leaf) {
          const rootJump = { ...signedIn, user: signedIn.name, remoteAddr };
          return forwardToLeaf(leaf, info, { accept, reject }, rootJump, deps);
        }
        if (!target) {
          deps.log('ssh proxy: unknown target', {
            user: jump.user,
            target: `${info.destIP}:${info.destPort}`,
          });
          return reject();
        }
        const channel = accept();
        limitInFlight(channel, software);
        serveInnerConnection(channel, target, jump, deps);
      });
      // The proxy's own sessions: `join` (postern join), or how to use the proxy.
      const requester = proxySessionRequester(user, deps);
      connection.on('session', (accept) =>
        serveProxySession(accept(), { terminals: deps.terminals, requester }),
      );
    });
  }

  /**
   * `node` is a node name, a hostname or host:port (port 22 is what ssh sends by default), or a
   * name with this cluster's name after it (`ssh root@web-1.lab`). The name asked for stays the
   * target's name, so the node's host certificate lists it and the client's host check passes.
   */
  private resolveTarget(host: string, port: number, roleSet: RoleSet): InnerTarget | undefined {
    const byName = port === 22 ? this.resolveName(host, roleSet) : undefined;
    const node = byName ?? this.deps.nodes.resolve(`${host}:${port}`, roleSet);
    return node ? { node, name: host } : undefined;
  }

  private resolveName(host: string, roleSet: RoleSet) {
    return resolveNodeName(this.deps.nodes, host, this.deps.clusterName, roleSet);
  }
}
