import { marksOf, type CredentialMarks } from '../../../access-control/locks/lock-watcher.js';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { routeDenial, type DatabaseRoute, type RouteDenial } from '../db-access.js';
import type { DatabaseClientCa } from '../db-client-ca.js';
import type { DatabaseRecord } from '../db-kind.js';
import type { DatabaseSessionAudit } from '../db-session-audit.js';
import type { DialDatabase } from '../db-kind.js';
import { connectMysql, DatabaseRefusal, type MysqlBackend } from './my-connect.js';
import { deniedError, relayMysql } from './my-relay.js';
import { MysqlPacketReader } from './my-reader.js';
import type { MysqlThreads } from './my-threads.js';
import type { PeerCancels } from '../peer-cancel.js';
import {
  Capability,
  ErrorCode,
  errPayload,
  greeting,
  MysqlWireError,
  offeredCapabilities,
  packet,
  parseHandshakeResponse,
  type MysqlError,
  type Packet,
} from './my-wire.js';

export interface MysqlEngineDeps {
  ca: DatabaseClientCa;
  dial: DialDatabase;
  threads: MysqlThreads;
  /** Where a kill of an id this proxy did not issue is asked (the cluster's other proxies). */
  peers?: PeerCancels;
}

/** One client connection, already authenticated as a Postern user allowed to reach `db`. */
/** The marks (`CredentialMarks`) are the credential's: a lock on one ends the session. */
export interface MysqlClient extends CredentialMarks {
  stream: Duplex;
  user: string;
  roleSet: RoleSet;
  db: DatabaseRecord;
  /** See DatabaseRoute.sessionRoles. */
  sessionRoles?: readonly string[];
  /**
   * The only database user and default database a native listener's certificate allows (a
   * client may also name no database); a handshake asking for others is refused.
   */
  pinned?: { dbUser: string; dbName: string };
  /**
   * The proxy is draining: the connection may only kill a query (the client's Ctrl-C arrives on a
   * new connection); any other command is refused as a server shutting down would.
   */
  killOnly?: boolean;
  open: (route: DatabaseRoute) => DatabaseSessionAudit;
  refuse: (route: DatabaseRoute, why: string) => void;
}

/** The version the proxy's greeting names: the real server's is known only after the route. */
const proxyServerVersion = '8.0.36-Postern';
/** utf8mb4_general_ci, which both MySQL and MariaDB know. */
const utf8mb4 = 45;

/** A client the proxy has greeted: the connection id it was given, and its answer. */
export interface GreetedClient {
  connectionId: number;
  reader: MysqlPacketReader;
  answer: Packet;
  /** The client's TLS is the listener's (the native listener), not refused as on the tunnel. */
  secured: boolean;
}

/**
 * The MySQL/MariaDB engine (docs/databases.md). The proxy greets the client itself, so the
 * database user and name the client asks for are checked against the roles before a byte
 * reaches the database; the password the client sends is ignored (Postern signed it in). Then
 * it signs in to the database with a client certificate for that user, hands the client the
 * database's OK, and relays, auditing every command and refusing the ones that would change
 * the route (`COM_CHANGE_USER`, `COM_INIT_DB` to a database the roles do not grant).
 */
export async function serveMysql(client: MysqlClient, deps: MysqlEngineDeps) {
  const reader = new MysqlPacketReader(client.stream);
  const connectionId = deps.threads.issue();
  try {
    client.stream.write(packet(0, proxyGreeting(connectionId, offeredCapabilities)));
    const answer = await reader.packet();
    await serveGreetedMysql(client, { connectionId, reader, answer, secured: false }, deps);
  } catch (error) {
    reader.release();
    protocolFailure(client.stream, error);
  }
}

/** The greeting the proxy sends in the database's stead, offering `capabilities`. */
export function proxyGreeting(connectionId: number, capabilities: number): Buffer {
  return greeting({
    serverVersion: proxyServerVersion,
    connectionId,
    capabilities,
    charset: utf8mb4,
    status: 0x0002,
    // Printable and without NULs, as servers make theirs: clients hash the password with it.
    authData: Buffer.from(randomBytes(20).map((byte) => 33 + (byte % 94))),
    authPlugin: 'mysql_native_password',
  });
}

/** The engine from the client's handshake response on: the route, the sign-in, the relay. */
export async function serveGreetedMysql(
  client: MysqlClient,
  greeted: GreetedClient,
  deps: MysqlEngineDeps,
) {
  const { reader, answer, connectionId } = greeted;
  let backend: MysqlBackend | undefined;
  try {
    const response = parseHandshakeResponse(answer.payload);
    if (!greeted.secured && response.capabilities & Capability.ssl) {
      reader.release();
      return fail(client.stream, answer.seq + 1, {
        code: ErrorCode.handshakeError,
        sqlState: '08S01',
        message:
          'the local listener does not speak TLS (the tunnel to the proxy is TLS already): connect with --ssl=0 or --ssl-mode=DISABLED',
      });
    }
    const route: DatabaseRoute = {
      user: client.user,
      db: client.db,
      dbUser: response.user,
      dbName: response.database,
      sessionRoles: client.sessionRoles,
      ...marksOf(client),
    };
    const denial: RouteDenial | undefined = !response.user
      ? { refused: 'user', message: 'name a database user' }
      : (pinnedDenial(client, route) ?? routeDenial(client.roleSet, route));
    if (denial) {
      reader.release();
      client.refuse(route, denial.message);
      return fail(client.stream, answer.seq + 1, deniedError(denial));
    }
    try {
      backend = await connectMysql(
        client.db,
        response,
        { allowLocalInfile: client.roleSet.options().mysqlLoadDataLocal },
        deps,
      );
    } catch (error) {
      reader.release();
      const refused = error instanceof DatabaseRefusal ? error.error : undefined;
      const why = (error as Error).message;
      client.refuse(route, why);
      return fail(
        client.stream,
        answer.seq + 1,
        refused
          ? {
              ...refused,
              message: `${refused.message} (Postern signs in with a client certificate: the user needs REQUIRE SUBJECT, see postern db ca export)`,
            }
          : {
              code: ErrorCode.badHost,
              sqlState: 'HY000',
              message: `cannot reach the database: ${why}`,
            },
      );
    }
    client.stream.write(packet(answer.seq + 1, backend.ok));
    deps.threads.bind(connectionId, {
      user: client.user,
      db: client.db.metadata.name,
      serverId: backend.serverConnectionId,
    });
    relayMysql(
      client,
      route,
      reader.release(),
      backend,
      () => deps.threads.drop(connectionId),
      deps,
    );
  } catch (error) {
    reader.release();
    backend?.socket.destroy();
    protocolFailure(client.stream, error);
  }
}

/** A client that broke the protocol while starting hears so; anything else just ends it. */
function protocolFailure(stream: Duplex, error: unknown): void {
  if (error instanceof MysqlWireError) {
    return fail(stream, 2, {
      code: ErrorCode.handshakeError,
      sqlState: '08S01',
      message: `protocol violation: ${error.message}`,
    });
  }
  stream.destroy();
}

/** A native listener's certificate names one user and database (or none): another is refused. */
function pinnedDenial(client: MysqlClient, route: DatabaseRoute): RouteDenial | undefined {
  const pinned = client.pinned;
  if (!pinned) return undefined;
  const userOk = route.dbUser === pinned.dbUser;
  if (userOk && (route.dbName === '' || route.dbName === pinned.dbName)) return undefined;
  return {
    refused: userOk ? 'name' : 'user',
    message: `this certificate is for database user "${pinned.dbUser}"${pinned.dbName ? ` and database "${pinned.dbName}"` : ''} on ${client.db.metadata.name}: run postern db login for another`,
  };
}

/** An error packet, then the end: the client reads the error before the connection closes. */
export function fail(stream: Duplex, seq: number, error: MysqlError): void {
  if (stream.writable) stream.end(packet(seq, errPayload(error)));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
