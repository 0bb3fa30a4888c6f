import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { HostPort } from '../../../config/address.js';
import { proxyShuttingDown } from '../../../modules/sessions/session-hub.js';
import {
  admitted,
  startNativeListener,
  upgradeToTls,
  type NativeListener,
  type NativeListenerDeps,
} from '../native-listener.js';
import { forwardLeafCancel, serveLeafPostgres, type LeafPostgresDeps } from './pg-leaf.js';
import { PacketReader } from './pg-reader.js';
import { forwardCancel, servePostgres, type PostgresEngineDeps } from './pg-session.js';
import { errorResponse, parseStartupPacket, WireError } from './pg-wire.js';

export interface PostgresListenerDeps extends NativeListenerDeps {
  engine: PostgresEngineDeps;
  /** On a root: its leaves' databases, for `postern db login --cluster` certificates. */
  leaf?: LeafPostgresDeps;
}

const tlsRequired =
  "Postern's PostgreSQL listener takes TLS with a client certificate only: connect with sslmode=verify-full and the files `postern db login` wrote";

/**
 * The native PostgreSQL listener (docs/databases.md): psql, drivers and GUI tools connect to
 * the proxy directly, with TLS and a client certificate from `postern db login` that names one
 * database, database user and name. No `postern proxy db` process sits in between; the engine
 * behind is the same as the tunnel's, pinned to the certificate's route.
 */
export function startPostgresListener(
  deps: PostgresListenerDeps,
  address: HostPort,
): Promise<NativeListener> {
  return startNativeListener(deps, address, (socket, context) => accept(socket, context, deps));
}

/** The clear-text start: GSSAPI declined, a cancel forwarded, TLS begun, nothing else. */
async function accept(
  socket: Socket,
  context: SecureContext,
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
        if (deps.leaf && (await forwardLeafCancel(packet.pid, packet.secret, deps.leaf))) return;
        await forwardCancel(packet.pid, packet.secret, deps.engine);
        return;
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

/** SQLSTATEs of a refusal after TLS; 57P01 (admin_shutdown) tells psql the server is stopping. */
const refusalCodes = {
  certificate: '28000',
  access: '28000',
  database: '3D000',
  draining: '57P01',
};

async function secure(socket: Socket, context: SecureContext, deps: PostgresListenerDeps) {
  const tls = await upgradeToTls(socket, context);
  const admission = admitted(tls, deps, 'postgres', tlsRequired);
  if ('refused' in admission) {
    // Through a load balancer, a client told the server is stopping reaches another proxy next.
    const message = admission.refused === 'draining' ? proxyShuttingDown : admission.message;
    return fatal(tls, refusalCodes[admission.refused], message);
  }
  const remoteAddr = socket.remoteAddress ?? '';
  if ('leaf' in admission) {
    if (!deps.leaf) return fatal(tls, '3D000', `no trusted cluster named ${admission.leaf}`);
    return serveLeafPostgres(tls, admission, remoteAddr, deps.leaf);
  }
  await servePostgres(
    {
      stream: tls,
      ...admission,
      open: (opened) => deps.sessions.open(opened, 'postgres', remoteAddr),
      refuse: (refused, why) => deps.sessions.refuse(refused, 'postgres', why, remoteAddr),
    },
    deps.engine,
  );
}

function fatal(stream: Socket | TLSSocket, code: string, message: string): void {
  if (stream.writable) stream.end(errorResponse({ severity: 'FATAL', code, message }));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
