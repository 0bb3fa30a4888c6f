import type { Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import type { HostPort } from '../../../config/address.js';
import { proxyShuttingDown } from '../../../modules/sessions/session-hub.js';
import {
  admitted,
  startNativeListener,
  upgradeToTls,
  type Admission,
  type NativeListener,
  type NativeListenerDeps,
} from '../native-listener.js';
import { serveLeafMysql, type LeafMysqlDeps } from './my-leaf.js';
import { MysqlPacketReader } from './my-reader.js';
import { fail, proxyGreeting, serveGreetedMysql, type MysqlEngineDeps } from './my-session.js';
import {
  Capability,
  ErrorCode,
  MysqlWireError,
  offeredCapabilities,
  packet,
  type MysqlError,
} from './my-wire.js';

export interface MysqlListenerDeps extends NativeListenerDeps {
  engine: MysqlEngineDeps;
  /** A trusted leaf's databases, through this root (absent: refused). */
  leaf?: LeafMysqlDeps;
}

const draining = { refused: 'draining', message: '' } as const;

const noLeaves = {
  refused: 'database',
  message: "this proxy does not reach trusted clusters' databases",
} as const;

const tlsRequired =
  "Postern's MySQL listener takes TLS with a client certificate only: connect with the --ssl-ca, --ssl-cert and --ssl-key files `postern db login` wrote";

/** An SSLRequest is a handshake response cut after its fixed 32-byte head. */
const sslRequestBytes = 32;

/**
 * The native MySQL listener (docs/databases.md): the mariadb and mysql clients, drivers and GUI
 * tools connect to the proxy directly, with TLS and a `postern db login` client certificate
 * that names one database, database user and default database. MySQL starts in clear text with
 * the server's greeting, so the proxy greets (offering TLS), takes the client's SSLRequest,
 * upgrades, and from the handshake response on the engine is the tunnel's, pinned to the
 * certificate's route.
 */
export function startMysqlListener(
  deps: MysqlListenerDeps,
  address: HostPort,
): Promise<NativeListener> {
  return startNativeListener(deps, address, (socket, context) => accept(socket, context, deps));
}

async function accept(socket: Socket, context: SecureContext, deps: MysqlListenerDeps) {
  const connectionId = deps.engine.threads.issue();
  const clear = new MysqlPacketReader(socket);
  let request;
  try {
    socket.write(packet(0, proxyGreeting(connectionId, offeredCapabilities | Capability.ssl)));
    request = await clear.packet();
  } catch (error) {
    clear.release();
    return refuseWire(socket, error);
  }
  const capabilities = request.payload.length >= 4 ? request.payload.readUInt32LE(0) : 0;
  if (!(capabilities & Capability.ssl)) {
    clear.release();
    return fail(socket, request.seq + 1, accessDenied(tlsRequired));
  }
  // Clients start the TLS handshake right behind the SSLRequest, without waiting for an
  // answer: bytes read past it are the ClientHello, handed back for TLS to read first.
  const rest = clear.release();
  if (request.payload.length !== sslRequestBytes) {
    return fail(socket, request.seq + 1, protocolViolation('a TLS request of the wrong size'));
  }
  const tls = await upgradeToTls(socket, context, rest);
  // The client sends its handshake response at once over TLS; the refusals answer it, in turn.
  const reader = new MysqlPacketReader(tls);
  let answer;
  try {
    answer = await reader.packet();
  } catch (error) {
    reader.release();
    return refuseWire(tls, error);
  }
  // While draining, a connection is let in to kill a query only: the mariadb client's Ctrl-C
  // comes on a new connection, and must reach the sessions this proxy still holds.
  const killOnly = deps.draining?.() === true;
  const admission = admitted(tls, { ...deps, draining: () => false }, 'mysql', tlsRequired);
  if ('refused' in admission) {
    reader.release();
    return fail(tls, answer.seq + 1, refusal(admission));
  }
  if (killOnly && 'leaf' in admission) {
    reader.release();
    return fail(tls, answer.seq + 1, refusal(draining));
  }
  const remoteAddr = socket.remoteAddress;
  if ('leaf' in admission) {
    if (!deps.leaf) return fail(tls, answer.seq + 1, refusal(noLeaves));
    return serveLeafMysql(
      tls,
      admission,
      { connectionId, reader, answer },
      remoteAddr ?? '',
      deps.leaf,
    );
  }
  await serveGreetedMysql(
    {
      stream: tls,
      ...admission,
      killOnly,
      open: (opened) => deps.sessions.open(opened, 'mysql', remoteAddr),
      refuse: (refused, why) => deps.sessions.refuse(refused, 'mysql', why, remoteAddr),
    },
    { connectionId, reader, answer, secured: true },
    deps.engine,
  );
}

/** A refusal after TLS in the words MySQL clients know (1053 reads as the server stopping). */
function refusal(admission: Extract<Admission, { refused: string }>): MysqlError {
  switch (admission.refused) {
    case 'draining':
      return { code: ErrorCode.serverShutdown, sqlState: '08S01', message: proxyShuttingDown };
    case 'database':
      return { code: ErrorCode.badDb, sqlState: '42000', message: admission.message };
    default:
      return accessDenied(admission.message);
  }
}

const accessDenied = (message: string): MysqlError => ({
  code: ErrorCode.accessDenied,
  sqlState: '28000',
  message,
});

const protocolViolation = (why: string): MysqlError => ({
  code: ErrorCode.handshakeError,
  sqlState: '08S01',
  message: `protocol violation: ${why}`,
});

function refuseWire(stream: Socket, error: unknown): void {
  if (error instanceof MysqlWireError) return fail(stream, 2, protocolViolation(error.message));
  stream.destroy();
}
