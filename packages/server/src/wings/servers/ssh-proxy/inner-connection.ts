import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import ssh2, { type Connection } from 'ssh2';
import { ApiError } from '../../../errors.js';
import { disconnectWithReason } from '../../../ssh/disconnect.js';
import { CertifiedHostKeys } from '../../../ssh/host-certificate.js';
import { outgoingPacketSize } from '../../../ssh/ssh2-internals.js';
import type { CertificatePolicy } from '../../../ssh/user-certificate-login.js';
import { certificateCredential } from '../../../access-control/access/credential-revocation.js';
import type { DialableNode } from '../terminal/node-dialer.js';
import type { Requester } from '../terminal/terminal.service.js';
import { rootSessionMfaRefusal } from '../../../identity/mfa/session-mfa.js';
import { loginAttempts } from './login-attempts.js';
import { PortForwarder } from './port-forward.js';
import { serveProxiedSession, type InnerLogin } from './session-channel.js';
import type { SshProxyDeps } from './ssh-proxy.js';

/**
 * The most an SSH packet adds to its data: length, padding length, the channel data header
 * (type, channel, length), up to 255 bytes of padding in theory but at most one cipher block
 * (16) plus 4 in practice, and the largest MAC (hmac-sha2-512: 64).
 */
const packetOverhead = 4 + 1 + 9 + 20 + 64;

/**
 * Data packets of the inner connection travel inside data packets of the jump channel: one a
 * byte too big is cut in two, and a bulk download pays for a second, tiny packet (and a
 * wake-up of the client) for every full one. Inner packets this size fit whole.
 */
function innerPacketLimit(jumpChannel: Duplex): number | undefined {
  const outer = outgoingPacketSize(jumpChannel);
  return outer && outer > 2 * packetOverhead ? outer - packetOverhead : undefined;
}

/** How often a connection checks for a lock or an expired certificate. */
const recheckMs = 1_000;

/** The client's connection to the proxy that an inner connection runs in. */
export interface JumpConnection {
  user: string;
  remoteAddr: string;
  clientIp: string;
  /** Session channels open on all its inner connections (max_sessions). */
  sessions: { open: number };
  /**
   * A root cluster's user, through the root (cluster-hops.ts): their certificate is signed by
   * the root's user CA, and the roles here are the ones this cluster's role map gave them, not
   * the certificate's.
   */
  fromRoot?: {
    root: string;
    userCaKeys: string[];
    roles: string[];
    /** The root's roles ask for a per-session MFA check: this cluster asks for it too. */
    rootSessionMfa: boolean;
  };
}

export interface InnerTarget {
  node: DialableNode;
  /** The name the client asked for (`ssh … root@<name>`): the host certificate must list it. */
  name: string;
}

/**
 * The SSH connection a client runs to a node inside the proxy's jump channel. The proxy ends it
 * itself, presenting a host certificate for the node from the cluster host CA (so one
 * `@cert-authority` line trusts every node), logs the client in with the same user certificate
 * as the jump, checks the login against the user's roles, and serves its channels: sessions
 * (session-channel.ts) and port forwards (port-forward.ts). Everything it does on the node goes
 * through the TerminalService, the same rules as the browser's.
 */
export function serveInnerConnection(
  stream: Duplex,
  target: InnerTarget,
  jump: JumpConnection,
  deps: SshProxyDeps,
): void {
  const principals = [...new Set([target.name, target.node.hostname, target.node.id])];
  serveAs(stream, principals, target.node.id, deps, (connection) =>
    serve(connection, target, jump, deps, stream),
  );
}

/**
 * An inner connection that only tells the client why it cannot be (a root user this cluster
 * refuses): the client checks the host first, so it hears the reason, not a dropped channel.
 */
export function serveRefusal(stream: Duplex, name: string, reason: string, deps: SshProxyDeps) {
  serveAs(stream, [name], name, deps, (connection) => {
    connection.on('error', () => undefined);
    const { refuse } = loginAttempts(connection, deps.log);
    connection.on('authentication', (ctx) =>
      ctx.method === 'none' ? ctx.reject(['publickey']) : refuse(ctx, reason, true),
    );
  });
}

/** An SSH server on `stream` whose host certificate (the cluster host CA's) names `principals`. */
export function serveAs(
  stream: Duplex,
  principals: string[],
  hostId: string,
  deps: SshProxyDeps,
  onConnection: (connection: Connection) => void,
): void {
  const certificate = deps.ca.issueHostCertificate({
    publicKey: deps.hostKey.publicKey,
    principals,
    ttlMs: 3600_000,
    hostId,
  });
  const keys = new CertifiedHostKeys(deps.hostKey.privateKeyPem, certificate);
  const server = new ssh2.Server({ hostKeys: keys.hostKeys as string[], ident: 'Postern' }, (c) =>
    onConnection(c),
  );
  server.on('connection', (connection) => keys.attach(connection));
  server.injectSocket(stream as Socket);
}

function serve(
  connection: Connection,
  target: InnerTarget,
  jump: JumpConnection,
  deps: SshProxyDeps,
  stream: Duplex,
): void {
  connection.on('error', (error: Error) =>
    deps.log('ssh proxy inner connection error', { error: error.message }),
  );
  const { refuse, certified } = loginAttempts(connection, deps.log);
  let login: InnerLogin | undefined;
  const { fromRoot } = jump;
  const policy: CertificatePolicy = {
    userCaPublicKeys: () => fromRoot?.userCaKeys ?? [deps.ca.userCaPublicKey],
    now: () => new Date(deps.now()),
    clientIp: jump.clientIp,
  };

  connection.on('authentication', (ctx) => {
    const checked = certified(ctx, policy);
    if (!checked) return;
    const { identity } = checked;
    if (identity.user !== jump.user) {
      return refuse(ctx, `this connection belongs to ${jump.user}, not ${identity.user}`, true);
    }
    // Without a signature this answers the "check" query: the client may now sign.
    if (!checked.signed) return ctx.accept();
    const credential = certificateCredential(identity.validAfter, identity.mfaDevice);
    // A root user's credentials are the root's: the root checked them when they signed in.
    const revoked = fromRoot ? undefined : deps.credentialRevoked(identity.user, credential);
    if (revoked) return refuse(ctx, revoked, true);
    const { user } = identity;
    const roles = fromRoot?.roles ?? identity.roles;
    const accessRequests = fromRoot ? [] : identity.accessRequests;
    const { hasRecord, ...current } = deps.requesterFor(user, roles, accessRequests);
    // disconnect_expired_cert: the certificate's end ends the connection and its sessions;
    // without it they run to max_session_ttl (counted from each session's start).
    const cutAtExpiry = current.roleSet.options().disconnectExpiredCert;
    // A per-session MFA certificate (require_session_mfa) opens the sessions it names, and
    // its sessions end when the login behind it does, not a minute in. A root names a leaf's
    // server as its user reaches it (`root@web-1.lab`): the root ran the check, with the
    // user's devices, after asking this cluster whether its roles want one (leaf-mfa.ts).
    const mfaName = fromRoot ? target.name.toLowerCase() : target.node.id;
    const mfaVerified = identity.sessionMfaTargets?.includes(`${ctx.username}@${mfaName}`);
    if (fromRoot?.rootSessionMfa && !mfaVerified) {
      return refuse(
        ctx,
        rootSessionMfaRefusal(fromRoot.root, 'postern ssh and scp ask for it'),
        true,
      );
    }
    const ends = identity.loginEndsAt ?? identity.validBefore;
    const requester: Requester = {
      ...current,
      expiresAt: cutAtExpiry ? ends.getTime() : Number.POSITIVE_INFINITY,
      subject: { user, roles, credential, hadRecord: hasRecord, accessRequests },
      ...(mfaVerified ? { mfaVerified: true } : {}),
      ...(identity.mfaDevice ? { mfaDevice: identity.mfaDevice } : {}),
      ...(identity.sessionMfaDevice ? { sessionMfaDevice: identity.sessionMfaDevice } : {}),
      ...(identity.botInstance ? { botInstance: identity.botInstance } : {}),
      ...(accessRequests.length ? { accessRequests } : {}),
    };
    const request = {
      serverId: target.node.id,
      login: ctx.username,
      traceId: '',
      remoteAddr: jump.remoteAddr,
    };
    deps.terminals.authorize(requester, request).then(
      (reach) => {
        login = {
          connection,
          requester,
          reach,
          remoteAddr: jump.remoteAddr,
          terminals: deps.terminals,
          audit: deps.audit,
          now: deps.now,
          log: deps.log,
          recordings: deps.recordings,
          maxPacketSize: innerPacketLimit(stream),
          channels: new Set(),
          sessions: jump.sessions,
        };
        ctx.accept();
      },
      (error: unknown) =>
        refuse(ctx, error instanceof ApiError ? error.message : 'internal error', true),
    );
  });

  connection.on('ready', () => {
    if (!login) return connection.end();
    const current = login;
    const forwarder = new PortForwarder(current);
    connection.on('session', (accept) => serveProxiedSession(accept(), current));
    connection.on('tcpip', (accept, reject, info) => void forwarder.forward(info, accept, reject));
    // `ssh -R`: the node listens for the client (other global requests are refused).
    connection.on('request', (accept, reject, name, info) => {
      if (name === 'tcpip-forward') return void forwarder.listen(info, accept, reject);
      if (name === 'cancel-tcpip-forward') return void forwarder.unlisten(info, accept, reject);
      reject?.();
    });
    // Ends the whole connection, saying why on every channel still open (commands without a
    // terminal, sftp: live sessions end themselves and say it on theirs).
    const endSaying = (reason: string) => {
      for (const channel of current.channels) {
        if (channel.writableEnded) continue; // a live session already said why
        channel.stderr.write(`\r\nPostern: ${reason}\r\n`);
        channel.exit(1);
        channel.end();
      }
      disconnectWithReason(connection, `Postern: ${reason}`);
    };
    // A lock or access taken away (a role edit, a changed password) ends the whole connection,
    // saying why (the hub's re-checks); so does the end of the certificate.
    const stopGuard = deps.terminals.guard(current.requester, current.reach, endSaying);
    const watch = setInterval(() => {
      if (deps.now() >= current.requester.expiresAt) connection.end();
    }, recheckMs);
    connection.on('close', () => {
      clearInterval(watch);
      stopGuard();
      forwarder.close();
    });
  });
}
