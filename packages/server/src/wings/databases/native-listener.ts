import { X509Certificate } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import {
  createSecureContext,
  TLSSocket,
  type PeerCertificate,
  type SecureContext,
  type SecureContextOptions,
} from 'node:tls';
import type { CredentialMarks } from '../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import type { HostPort } from '../../config/address.js';
import { acceptProxied, TrustedProxies } from '../../net/proxy-protocol.js';
import { renewingListenerTls } from '../../tls/listener-tls.js';
import { certifiedRoute, type DatabaseClientCa } from './db-client-ca.js';
import type { DatabasesService } from './databases.service.js';
import type { DatabaseRecord } from './db-kind.js';
import type { DatabaseSessions } from './db-session-audit.js';

/** What every protocol's native listener needs, whatever it speaks. */
export interface NativeListenerDeps {
  /** The access CA: it signs the listener's certificate and people's `postern db login` ones. */
  accessCa: DatabaseClientCa;
  /** The names clients reach the listener by (its certificate's subject alternative names). */
  serverNames: string[];
  databases: Pick<DatabasesService, 'get'>;
  /** The user's access now, or why they have none (no longer a user, locked). */
  identify: (
    user: string,
    marks?: CredentialMarks,
  ) => { roleSet: RoleSet; roles: string[]; traits: Record<string, string[]> } | string;
  sessions: DatabaseSessions;
  /**
   * True while the proxy drains before it stops: `admitted` refuses new connections (the MySQL
   * listener asks it without, and lets a connection in to kill a query only).
   */
  draining?: () => boolean;
  /** Balancers whose PROXY protocol header names the client (trusted_proxies). */
  trustedProxies?: TrustedProxies;
  /** How long each of the listener's own certificates is valid (tests shorten it). */
  certTtlMs?: number;
  /** Told when a renewal of the listener's certificate failed (it is tried again). */
  renewalFailed?: (error: unknown) => void;
}

export interface NativeListener {
  address: HostPort;
  stop: () => Promise<void>;
}

/**
 * A native database listener's socket side (docs/databases.md): a TCP listener (behind the PROXY
 * protocol when a trusted balancer sends it) whose own certificate of the access CA is renewed
 * while it runs. `accept` speaks the protocol's clear-text start and calls `upgradeToTls` with
 * the context of the moment: renewal swaps it, open connections keep theirs.
 */
export async function startNativeListener(
  deps: NativeListenerDeps,
  address: HostPort,
  accept: (socket: Socket, context: SecureContext) => Promise<void>,
): Promise<NativeListener> {
  let context: SecureContext;
  // The TLS sockets are made by hand, not by a tls.Server, which would set a session id context.
  // Without one, OpenSSL answers a client that resumes a session (mysql2 does, for connections
  // made with one options object, as a pool's are) with an internal error alert, as it asks for
  // a certificate. A resumed session brings its certificate back, and `admitted` checks it again.
  const contextOf = (options: SecureContextOptions) =>
    createSecureContext({ ...options, sessionIdContext: 'postern-native-db' });
  const tls = await renewingListenerTls(deps.accessCa, deps.serverNames, {
    renewed: (options) => (context = contextOf(options)),
    ttlMs: deps.certTtlMs,
    failed: deps.renewalFailed,
  });
  context = contextOf(tls.options);
  const sockets = new Set<Socket>();
  const trusted = deps.trustedProxies ?? new TrustedProxies([]);
  const listener = createServer((connection) => {
    sockets.add(connection);
    connection.once('close', () => sockets.delete(connection));
    connection.setNoDelay(true);
    connection.on('error', () => undefined);
    acceptProxied(connection, trusted, (socket) => {
      void accept(socket, context).catch(() => socket.destroy());
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', (error) => {
      tls.stop();
      reject(error);
    });
    listener.listen(address.port, address.host, () => resolve());
  });
  const bound = listener.address() as AddressInfo;
  return {
    address: { host: address.host, port: bound.port },
    stop: async () => {
      tls.stop();
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/**
 * The server side of TLS on a socket whose clear-text start asked for it, asking for a
 * certificate. `pending` is what was read past that start (a ClientHello sent without waiting
 * for an answer): TLS reads it first. The socket is paused for that, or a flowing socket would
 * hand those bytes to no one.
 */
export async function upgradeToTls(
  socket: Socket,
  context: SecureContext,
  pending?: Buffer,
): Promise<TLSSocket> {
  if (pending && pending.length > 0) {
    socket.pause();
    socket.unshift(pending);
  }
  const tls = new TLSSocket(socket, {
    isServer: true,
    secureContext: context,
    requestCert: true,
    // Checked by `admitted`, so that a refused client hears why in its protocol's words.
    rejectUnauthorized: false,
  });
  tls.on('error', () => tls.destroy());
  await new Promise<void>((resolve, reject) => {
    tls.once('secure', resolve);
    tls.once('close', () => reject(new Error('closed during the TLS handshake')));
  });
  return tls;
}

/** Who may go on, and to which route, after the TLS handshake; or why not, and how to say it. */
export type Admission =
  | {
      user: string;
      roleSet: RoleSet;
      db: DatabaseRecord;
      pinned: { dbUser: string; dbName: string };
      /**
       * The certificate's: a lock on the device, the bot instance or one of the requests ends
       * the session.
       */
      mfaDevice?: string;
      botInstance?: string;
      accessRequests?: string[];
    }
  | LeafAdmission
  | { refused: 'certificate' | 'draining' | 'access' | 'database'; message: string };

/** A route to a trusted leaf's database: the leaf decides, the root relays (pg-leaf.ts). */
export interface LeafAdmission {
  leaf: string;
  /** The database's name on the leaf. */
  name: string;
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  pinned: { dbUser: string; dbName: string };
  /** When the certificate ends (ms): the hop ends with it. */
  expiresMs: number;
  /** The MFA device its login was proven with: a lock on it ends the hop. */
  mfaDevice?: string | undefined;
  /** The bot instance it was issued to: the same. */
  botInstance?: string | undefined;
  /** The access requests its login had assumed: the same. */
  accessRequests?: string[] | undefined;
}

/**
 * The checks every native listener makes of a client after TLS: a `postern db login`
 * certificate of the access CA naming a route, a user who still has access, a database of the
 * listener's protocol by that name, and a proxy that is not draining.
 */
export function admitted(
  tls: TLSSocket,
  deps: NativeListenerDeps,
  protocol: DatabaseRecord['spec']['protocol'],
  tlsRequired: string,
): Admission {
  const peer = tls.getPeerCertificate() as PeerCertificate & { subjectaltname?: string };
  const untrusted = certificateProblem(peer, deps.accessCa.certPem);
  if (untrusted) return { refused: 'certificate', message: `${tlsRequired} (${untrusted})` };
  if (deps.draining?.()) return { refused: 'draining', message: '' };
  const route = certifiedRoute(peer);
  if (!route) {
    return {
      refused: 'certificate',
      message: 'this certificate names no database: run postern db login',
    };
  }
  const { mfaDevice, botInstance, accessRequests } = route;
  const access = deps.identify(route.user, { mfaDevice, botInstance, accessRequests });
  if (typeof access === 'string') return { refused: 'access', message: `access denied: ${access}` };
  const pinned = { dbUser: route.dbUser, dbName: route.dbName };
  if (route.cluster) {
    if ((route.protocol ?? 'postgres') !== protocol) {
      return {
        refused: 'database',
        message: `no ${protocolTitle[protocol]} database named ${route.db} on ${route.cluster}`,
      };
    }
    const { roles, traits } = access;
    const expiresMs = Date.parse(new X509Certificate(peer.raw).validTo);
    return {
      leaf: route.cluster,
      name: route.db,
      user: route.user,
      roles,
      traits,
      pinned,
      expiresMs,
      mfaDevice,
      botInstance,
      accessRequests,
    };
  }
  const db = deps.databases.get(route.db);
  if (!db || db.spec.protocol !== protocol) {
    return {
      refused: 'database',
      message: `no ${protocolTitle[protocol]} database named ${route.db}`,
    };
  }
  return {
    user: route.user,
    roleSet: access.roleSet,
    db,
    pinned,
    ...(mfaDevice ? { mfaDevice } : {}),
    ...(botInstance ? { botInstance } : {}),
    // The session's re-checks resolve the roles they add, and a lock on one ends it.
    ...(accessRequests ? { accessRequests } : {}),
  };
}

const protocolTitle: Record<DatabaseRecord['spec']['protocol'], string> = {
  postgres: 'PostgreSQL',
  mysql: 'MySQL',
};

const clientAuth = '1.3.6.1.5.5.7.3.2';

/**
 * Why the client's certificate does not count, or undefined: it must be the access CA's, for
 * client authentication, and within its validity. (A server-side TLSSocket made from a plain
 * socket reports no verdict of its own, so the check is explicit.)
 */
function certificateProblem(peer: PeerCertificate, caPem: string): string | undefined {
  if (!peer?.raw) return 'no client certificate';
  const cert = new X509Certificate(peer.raw);
  const ca = new X509Certificate(caPem);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) {
    return "the certificate is not from this cluster's database access CA";
  }
  if (!cert.keyUsage?.includes(clientAuth)) return 'the certificate is not for clients';
  const now = Date.now();
  if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo)) {
    return 'the certificate has expired: run postern db login again';
  }
  return undefined;
}
