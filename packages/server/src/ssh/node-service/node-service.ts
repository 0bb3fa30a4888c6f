import type { AddressInfo, Socket } from 'node:net';
import { HostUsers } from './host-users.js';
import type { Duplex } from 'node:stream';
import ssh2, { type AuthContext, type Connection, type Server } from 'ssh2';
import { ed25519PrivateKeyObject, publicKeyFromPrivatePem } from '../keys.js';
import { toOpenSshPrivateKey } from '../openssh-key-format.js';
import { sendAuthBanner } from '../user-certificate-login.js';
import { judgePublicKey, type AuthPolicy, type CertifiedIdentity } from './authenticate.js';
import type { LoginAccount } from './os-user.js';
import type { SessionProcess } from './processes.js';
import { serveSession, type SessionContext } from './session.js';
import { findSftpServer } from './sftp-server.js';

export interface NodeServiceOptions {
  /** The node's Ed25519 host key, PKCS#8 PEM or OpenSSH format. */
  hostKeyPem: string;
  /** The cluster's user CA keys (OpenSSH lines); a function so CA rotation needs no restart. */
  userCaPublicKeys: () => string[];
  /** A message when the target is locked (sessions are refused), else undefined. */
  lockedMessage?: (target: { user: string; roles: string[]; login: string }) => string | undefined;
  now?: () => Date;
  log?: (msg: string, fields?: object) => void;
  /** OpenSSH's sftp-server for the `sftp` subsystem; by default the first one installed. */
  sftpServer?: string;
}

/** OpenSSH's default MaxAuthTries. */
const MAX_AUTH_ATTEMPTS = 6;
/** OpenSSH's LoginGraceTime is 120 s; our clients are programs, so less is plenty. */
const LOGIN_GRACE_MS = 30_000;
const CLOSE_GRACE_MS = 5_000;

/**
 * Postern's own SSH server for the host it runs on: `postern start` runs it in-process and an
 * agent serves it through its tunnel (`handleConnection`). Only certificates from the cluster's
 * user CA log in (see authenticate.ts); sessions run shells and commands as the login's OS user.
 */
export class NodeService {
  readonly hostPublicKey: string;
  private readonly server: Server;
  private readonly policy: AuthPolicy;
  private readonly log: (msg: string, fields?: object) => void;
  private readonly connections = new Set<Connection>();
  private readonly processes = new Set<SessionProcess>();
  /** OS users made for logins that had none (create_host_user_mode). */
  private readonly hostUsers: HostUsers;
  private listening = false;
  private readonly sftpServer: string | undefined;

  constructor(opts: NodeServiceOptions) {
    // ssh2 reads Ed25519 private keys only in OpenSSH's format.
    const hostKey = toOpenSshPrivateKey(ed25519PrivateKeyObject(opts.hostKeyPem));
    this.hostPublicKey = publicKeyFromPrivatePem(opts.hostKeyPem);
    this.log = opts.log ?? (() => {});
    this.hostUsers = new HostUsers(this.log);
    this.sftpServer = findSftpServer(opts.sftpServer);
    if (!this.sftpServer) {
      this.log('no sftp-server found: the sftp subsystem (file transfer) is refused', {
        configured: opts.sftpServer ?? null,
      });
    }
    this.policy = {
      userCaPublicKeys: opts.userCaPublicKeys,
      lockedMessage: opts.lockedMessage,
      now: opts.now ?? (() => new Date()),
    };
    this.server = new ssh2.Server({ hostKeys: [hostKey], ident: 'Postern' }, (connection) =>
      this.serveConnection(connection),
    );
    this.server.on('error', (error: Error) =>
      this.log('ssh node service error', { error: error.message }),
    );
  }

  /** Serves one already-open stream (a tunnel hands these over). */
  handleConnection(socket: Duplex): void {
    this.server.injectSocket(socket as Socket);
  }

  listen(host: string, port: number): Promise<{ port: number }> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        this.listening = true;
        resolve({ port: (this.server.address() as AddressInfo).port });
      });
    });
  }

  /** Stops listening, hangs up every running process and ends every connection. */
  async close(): Promise<void> {
    const stopped = this.listening
      ? new Promise<void>((resolve) => this.server.close(() => resolve()))
      : Promise.resolve();
    this.listening = false;
    for (const running of this.processes) running.hangUp();
    const ended = [...this.connections].map(
      (connection) =>
        new Promise<void>((resolve) => {
          connection.once('close', () => resolve());
          connection.end();
          // A peer that never answers our disconnect must not hold up shutdown.
          setTimeout(() => {
            (connection as unknown as { _sock?: Duplex })._sock?.destroy();
            resolve();
          }, CLOSE_GRACE_MS).unref();
        }),
    );
    await Promise.all([stopped, ...ended]);
  }

  private loggedIn(identity: CertifiedIdentity, account: LoginAccount): SessionContext {
    const { user, login, roles, serial } = identity;
    this.log('ssh login', { user, login, roles, serial: String(serial) });
    return {
      identity,
      account,
      lockedMessage: () => this.policy.lockedMessage?.(identity),
      log: this.log,
      sftpServer: this.sftpServer,
      track: (running) => {
        this.processes.add(running);
        return () => this.processes.delete(running);
      },
    };
  }

  /** A login made by the grant: counted while this connection lives (insecure-drop). */
  private holdHostUser(connection: Connection, identity: CertifiedIdentity): void {
    const grant = identity.hostUser;
    if (!grant) return;
    this.hostUsers.hold(identity.login, grant);
    connection.once('close', () => void this.hostUsers.release(identity.login));
  }

  private serveConnection(connection: Connection): void {
    // As sshd does: keystrokes, echoes and SFTP replies are small writes that Nagle's algorithm
    // would hold back for the peer's delayed ACK (~40 ms each).
    // (ssh2 has the method; its type definitions miss it.)
    (connection as unknown as { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    this.connections.add(connection);
    connection.on('close', () => this.connections.delete(connection));
    connection.on('error', (error: Error) =>
      this.log('ssh connection error', { error: error.message }),
    );
    const grace = setTimeout(() => connection.end(), LOGIN_GRACE_MS);
    let failures = 0;
    let session: SessionContext | undefined;

    const refuse = (ctx: AuthContext, reason: string) => {
      this.log('ssh login refused', { login: ctx.username, method: ctx.method, reason });
      ctx.reject(['publickey']);
      if (++failures >= MAX_AUTH_ATTEMPTS) connection.end();
    };

    connection.on('authentication', (ctx) => {
      // Clients open with "none" to learn the methods; that is not a failed attempt.
      if (ctx.method === 'none') return ctx.reject(['publickey']);
      if (ctx.method !== 'publickey') return refuse(ctx, `method ${ctx.method} is not allowed`);
      judgePublicKey(ctx, this.policy, this.hostUsers)
        .then(
          (verdict) => {
            if (!verdict.ok) {
              if (verdict.tellClient) sendAuthBanner(ctx, `Postern: ${verdict.reason}`);
              return refuse(ctx, verdict.reason);
            }
            if (ctx.signature) {
              if (!verdict.account) return refuse(ctx, `no OS user ${ctx.username} on this host`);
              session = this.loggedIn(verdict.identity, verdict.account);
              this.holdHostUser(connection, verdict.identity);
            }
            // Without a signature this answers the "check" query: the client may now sign.
            ctx.accept();
          },
          (error: unknown) => refuse(ctx, `internal error: ${(error as Error).message}`),
        )
        // Answering can only fail when the connection is already gone.
        .catch((error: unknown) => this.log('ssh auth reply failed', { error: String(error) }));
    });

    connection.on('ready', () => {
      clearTimeout(grace);
      connection.on('session', (accept, reject) => {
        if (!session) return reject();
        serveSession(accept(), session);
      });
    });
    connection.on('close', () => clearTimeout(grace));
  }
}
