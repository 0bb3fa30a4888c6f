import { X509Certificate } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type PeerCertificate, type SecureContext } from 'node:tls';
import { renewingListenerTls } from '../../../tls/listener-tls.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { HostPort } from '../../../config/address.js';
import { certifiedRoute, type DatabaseClientCa } from '../db-client-ca.js';
import type { DatabasesService } from '../databases.service.js';
import type { DatabaseSessions } from '../db-session-audit.js';
import { PacketReader } from './pg-reader.js';
import { forwardCancel, servePostgres, type PostgresEngineDeps } from './pg-session.js';
import { errorResponse, parseStartupPacket, WireError } from './pg-wire.js';
import { proxyShuttingDown } from '../../../modules/sessions/session-hub.js';
import { acceptProxied, TrustedProxies } from '../../../net/proxy-protocol.js';

export interface PostgresListenerDeps {
  /** The access CA: it signs this listener's certificate and people's `postern db login` ones. */
  accessCa: DatabaseClientCa;
  /** The names clients reach the listener by (its certificate's subject alternative names). */
  serverNames: string[];
  databases: Pick<DatabasesService, 'get'>;
  /** The user's access now, or why they have none (no longer a user, locked). */
  identify: (user: string) => { roleSet: RoleSet; roles: string[] } | string;
  engine: PostgresEngineDeps;
  sessions: DatabaseSessions;
  /** True while the proxy drains before it stops: new connections are refused (cancels pass). */
  draining?: () => boolean;
  /** Balancers whose PROXY protocol header names the client (trusted_proxies). */
  trustedProxies?: TrustedProxies;
  /** How long each of the listener's own certificates is valid (tests shorten it). */
  certTtlMs?: number;
  /** Told when a renewal of the listener's certificate failed (it is tried again). */
  renewalFailed?: (error: unknown) => void;
}

const tlsRequired =
  "Postern's PostgreSQL listener takes TLS with a client certificate only: connect with sslmode=verify-full and the files `postern db login` wrote";

/**
 * The native PostgreSQL listener (docs/databases.md): psql, drivers and GUI tools connect to
 * the proxy directly, with TLS and a client certificate from `postern db login` that names one
 * database, database user and name. No `postern proxy db` process sits in between; the engine
 * behind is the same as the tunnel's, pinned to the certificate's route.
 */
export async function startPostgresListener(
  deps: PostgresListenerDeps,
  address: HostPort,
): Promise<{ address: HostPort; stop: () => Promise<void> }> {
  // Each new connection takes the context of the moment: renewal swaps it, open ones keep theirs.
  let context: SecureContext;
  const tls = await renewingListenerTls(deps.accessCa, deps.serverNames, {
    renewed: (options) => (context = createSecureContext(options)),
    ttlMs: deps.certTtlMs,
    failed: deps.renewalFailed,
  });
  context = createSecureContext(tls.options);
  const sockets = new Set<Socket>();
  const trusted = deps.trustedProxies ?? new TrustedProxies([]);
  const listener = createServer((connection) => {
    sockets.add(connection);
    connection.once('close', () => sockets.delete(connection));
    connection.setNoDelay(true);
    connection.on('error', () => undefined);
    acceptProxied(connection, trusted, (socket) => {
      void accept(socket, context, deps).catch(() => socket.destroy());
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

/** The clear-text start: GSSAPI declined, a cancel forwarded, TLS begun, nothing else. */
async function accept(
  socket: Socket,
  context: ReturnType<typeof createSecureContext>,
  deps: PostgresListenerDeps,
): Promise<void> {
  const reader = new PacketReader(socket);
  for (;;) {
    let packet;
    try {
      packet = parseStartupPacket(await reader.startupPacket());
    } catch (error) {
      reader.release();
      if (error instanceof WireError)
        return fatal(socket, '08P01', `protocol violation: ${error.message}`);
      throw error;
    }
    switch (packet.type) {
      case 'gssenc':
        socket.write('N');
        continue;
      case 'cancel':
        // libpq sends cancels without TLS: the key is the only credential, as at PostgreSQL.
        reader.release();
        socket.end();
        return forwardCancel(packet.pid, packet.secret, deps.engine, () => true);
      case 'ssl': {
        if (reader.release().length > 0) {
          return fatal(socket, '08P01', 'protocol violation: data after the TLS request');
        }
        socket.write('S');
        return secure(socket, context, deps);
      }
      default:
        reader.release();
        return fatal(socket, '28000', tlsRequired);
    }
  }
}

async function secure(
  socket: Socket,
  context: ReturnType<typeof createSecureContext>,
  deps: PostgresListenerDeps,
): Promise<void> {
  const tls = new TLSSocket(socket, {
    isServer: true,
    secureContext: context,
    requestCert: true,
    // Checked below (certificateProblem), so that a refused one hears why in PostgreSQL's words.
    rejectUnauthorized: false,
  });
  tls.on('error', () => tls.destroy());
  await new Promise<void>((resolve, reject) => {
    tls.once('secure', resolve);
    tls.once('close', () => reject(new Error('closed during the TLS handshake')));
  });
  const peer = tls.getPeerCertificate() as PeerCertificate & { subjectaltname?: string };
  const untrusted = certificateProblem(peer, deps.accessCa.certPem);
  if (untrusted) return fatal(tls, '28000', `${tlsRequired} (${untrusted})`);
  // 57P01 (admin_shutdown): psql and drivers report it as the server shutting down; through a
  // load balancer the next connection reaches another proxy.
  if (deps.draining?.()) return fatal(tls, '57P01', proxyShuttingDown);
  const route = certifiedRoute(peer);
  if (!route)
    return fatal(tls, '28000', 'this certificate names no database: run postern db login');
  const access = deps.identify(route.user);
  const db = deps.databases.get(route.db);
  if (typeof access === 'string') return fatal(tls, '28000', `access denied: ${access}`);
  if (!db || db.spec.protocol !== 'postgres') {
    return fatal(tls, '3D000', `no PostgreSQL database named ${route.db}`);
  }
  const remoteAddr = socket.remoteAddress;
  await servePostgres(
    {
      stream: tls,
      user: route.user,
      roleSet: access.roleSet,
      db,
      pinned: { dbUser: route.dbUser, dbName: route.dbName },
      open: (opened) => deps.sessions.open(opened, 'postgres', remoteAddr),
      refuse: (refused, why) => deps.sessions.refuse(refused, 'postgres', why, remoteAddr),
    },
    deps.engine,
  );
}

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

function fatal(stream: Socket | TLSSocket, code: string, message: string): void {
  if (stream.writable) stream.end(errorResponse({ severity: 'FATAL', code, message }));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
