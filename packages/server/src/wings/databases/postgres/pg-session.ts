import { marksOf, type CredentialMarks } from '../../../access-control/locks/lock-watcher.js';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { routeRefusal, type DatabaseRoute } from '../db-access.js';
import type { DatabaseRecord } from '../db-kind.js';
import { coalescingPipe } from '../../../net/coalescing-pipe.js';
import type { DatabaseSessionAudit } from '../db-session-audit.js';
import { inScope, type CancelKeys, type CancelScope } from './cancel-keys.js';
import type { PeerCancels } from '../peer-cancel.js';
import type { DialDatabase } from '../db-kind.js';
import { connectPostgres } from './pg-connect.js';
import { MessageScanner, PacketReader } from './pg-reader.js';
import { refusedStartupParameter } from './pg-startup-params.js';
import { auditedMessageTypes, statementEvent } from './pg-statements.js';
import {
  backendKeyData,
  cancelRequest,
  errorResponse,
  message,
  parseStartupPacket,
  readErrorFields,
  startupMessage,
  WireError,
  type ErrorFields,
} from './pg-wire.js';
import type { DatabaseClientCa } from '../db-client-ca.js';

export interface PostgresEngineDeps {
  ca: DatabaseClientCa;
  dial: DialDatabase;
  cancelKeys: CancelKeys;
  /** Where a cancel by a key this proxy did not issue is asked (the cluster's other proxies). */
  peers?: PeerCancels;
}

/** One client connection, already authenticated as a Postern user allowed to reach `db`. */
/** The marks (`CredentialMarks`) are the credential's: a lock on one ends the session. */
export interface PostgresClient extends CredentialMarks {
  stream: Duplex;
  user: string;
  roleSet: RoleSet;
  db: DatabaseRecord;
  /** See DatabaseRoute.sessionRoles. */
  sessionRoles?: readonly string[];
  /**
   * The database user and name a native listener's certificate allows: a startup that asks
   * for others is refused (the certificate names one route, not the roles' choice of many).
   */
  pinned?: { dbUser: string; dbName: string };
  /** Starts the session's audit and liveness checks once the database has let it in. */
  open: (route: DatabaseRoute) => DatabaseSessionAudit;
  /** A refused or failed start, audited as such. */
  refuse: (route: DatabaseRoute, why: string) => void;
}

/**
 * The PostgreSQL engine (docs/databases.md): reads the client's startup packet, checks the
 * database user and name it asks for against the user's roles before anything reaches the
 * database, signs in to the database with a client certificate for that user, swaps the
 * database's cancel key for one of its own, then relays, auditing every statement the client
 * sends. Errors the client should understand arrive as PostgreSQL `ErrorResponse`s.
 */
export async function servePostgres(client: PostgresClient, deps: PostgresEngineDeps) {
  const reader = new PacketReader(client.stream);
  let backend: TLSSocket | undefined;
  try {
    const startup = await readStartup(client, reader, deps);
    if (!startup) return;
    const dbUser = startup.get('user') ?? '';
    const route: DatabaseRoute = {
      user: client.user,
      db: client.db,
      dbUser,
      dbName: startup.get('database') || dbUser,
      sessionRoles: client.sessionRoles,
      ...marksOf(client),
    };
    const refusal = !dbUser
      ? 'name a database user'
      : (pinnedRefusal(client, route) ??
        refusedStartupParameter(startup) ??
        routeRefusal(client.roleSet, route));
    if (refusal) {
      client.refuse(route, refusal);
      return fatal(client.stream, { code: '28000', message: refusal });
    }
    try {
      backend = await connectPostgres(client.db, dbUser, deps);
    } catch (error) {
      const why = (error as Error).message;
      client.refuse(route, why);
      return fatal(client.stream, { code: '08001', message: `cannot reach the database: ${why}` });
    }
    backend.write(startupMessage(forwardedParameters(startup, route)));
    const key = await relayAuthentication(client, route, backend, deps);
    if (!key) return;
    relay(client, route, reader.release(), backend, key, deps);
  } catch (error) {
    reader.release();
    backend?.destroy();
    if (error instanceof WireError) {
      return fatal(client.stream, {
        code: '08P01',
        message: `protocol violation: ${error.message}`,
      });
    }
    client.stream.destroy();
  }
}

/** The startup parameters, after answering TLS requests and serving a cancel request. */
async function readStartup(
  client: PostgresClient,
  reader: PacketReader,
  deps: PostgresEngineDeps,
): Promise<Map<string, string> | undefined> {
  for (;;) {
    const packet = parseStartupPacket(await reader.startupPacket());
    switch (packet.type) {
      // The client is on loopback or inside the proxy's TLS already: no second layer.
      case 'ssl':
      case 'gssenc':
        client.stream.write('N');
        continue;
      case 'cancel':
        await forwardCancel(packet.pid, packet.secret, deps, {
          user: client.user,
          db: client.db.metadata.name,
        });
        reader.release();
        client.stream.end();
        return undefined;
      case 'unsupported':
        reader.release();
        fatal(client.stream, {
          code: '0A000',
          message: `unsupported frontend protocol ${packet.code >> 16}.${packet.code & 0xffff}: Postern speaks 3.0`,
        });
        return undefined;
      case 'startup':
        return packet.params;
    }
  }
}

/**
 * A cancel request names the proxy's key; `scope` says whose session may be cancelled from here
 * (through the tunnel: the same user's, on the same database; on the native listener, where
 * libpq sends it without TLS, the key alone decides, as at PostgreSQL itself). A key another
 * proxy of the cluster issued is asked of the proxies (`peers`, peer-cancel.ts). PostgreSQL
 * answers nothing to a cancel request, and neither does the proxy; true when it was forwarded.
 */
export async function forwardCancel(
  pid: number,
  secret: Buffer,
  deps: Pick<PostgresEngineDeps, 'cancelKeys' | 'dial' | 'peers'>,
  scope?: CancelScope,
): Promise<boolean> {
  const target = deps.cancelKeys.find(pid, secret);
  if (!target) return (await deps.peers?.forward(pid, secret, scope)) ?? false;
  if (!inScope(target, scope)) return false;
  const raw = await deps.dial(target.db).catch(() => undefined);
  if (!raw) return false;
  // A cancel request is sent in the clear as its own connection's first packet, as libpq does:
  // it holds no credential but the key, which never leaves the proxy.
  raw.on('error', () => undefined);
  raw.end(cancelRequest(target.pid, target.secret));
  return true;
}

function pinnedRefusal(client: PostgresClient, route: DatabaseRoute): string | undefined {
  const pinned = client.pinned;
  if (!pinned || (pinned.dbUser === route.dbUser && pinned.dbName === route.dbName)) return;
  return `this certificate is for database user "${pinned.dbUser}" and database "${pinned.dbName}" on ${client.db.metadata.name}: run postern db login for another`;
}

/** What the proxy passes on of the client's startup: the route, and harmless settings. */
function forwardedParameters(startup: Map<string, string>, route: DatabaseRoute) {
  const params = new Map(startup);
  params.set('user', route.dbUser);
  params.set('database', route.dbName);
  return params;
}

/**
 * Relays the database's side of the start until `ReadyForQuery`. The database must let the
 * certificate in (AuthenticationOk): a password prompt means it does not trust Postern's CA,
 * which the client hears as such. Returns the database's cancel key, swapped for the client.
 */
async function relayAuthentication(
  client: PostgresClient,
  route: DatabaseRoute,
  backend: TLSSocket,
  deps: PostgresEngineDeps,
): Promise<{ pid: number; secret: Buffer; real: { pid: number; secret: Buffer } } | undefined> {
  const reader = new PacketReader(backend);
  let key: { pid: number; secret: Buffer; real: { pid: number; secret: Buffer } } | undefined;
  try {
    for (;;) {
      const { type, body } = await reader.message();
      if (type === 'R' && body.readInt32BE(0) !== 0) {
        const why = `database ${route.db.metadata.name} asked for a password for "${route.dbUser}": it must trust Postern's database CA and take certificates (postern db ca export)`;
        client.refuse(route, why);
        fatal(client.stream, { code: '28000', message: why });
        backend.destroy();
        return undefined;
      }
      if (type === 'E') {
        const fields = readErrorFields(body);
        client.refuse(route, fields.get('M') ?? 'the database refused the connection');
        client.stream.end(message(type, body));
        backend.destroy();
        return undefined;
      }
      if (type === 'K') {
        const real = { pid: body.readInt32BE(0), secret: Buffer.from(body.subarray(4)) };
        const mine = deps.cancelKeys.issue({ user: client.user, db: client.db, ...real });
        key = { ...mine, real };
        client.stream.write(backendKeyData(mine.pid, mine.secret));
        continue;
      }
      client.stream.write(message(type, body));
      if (type === 'Z') {
        const rest = reader.release();
        if (rest.length > 0) client.stream.write(rest);
        return (
          key ?? { pid: 0, secret: Buffer.alloc(0), real: { pid: 0, secret: Buffer.alloc(0) } }
        );
      }
    }
  } catch (error) {
    reader.release();
    if (key) deps.cancelKeys.drop(key.pid, key.secret);
    throw error;
  }
}

/**
 * The session proper: the client's messages are scanned (not copied) for the statements to audit
 * and written on as they came; the database's answers are piped through untouched.
 */
function relay(
  client: PostgresClient,
  route: DatabaseRoute,
  pending: Buffer,
  backend: TLSSocket,
  key: { pid: number; secret: Buffer },
  deps: PostgresEngineDeps,
): void {
  const session = client.open(route);
  const portals = new Map<string, string>();
  // A client that says Terminate ('X') closed the session, whoever's socket closes first.
  let terminated = false;
  const scanner = new MessageScanner(
    (type) => auditedMessageTypes.has(type) || type === 'X',
    (type, body, truncated) => {
      if (type === 'X') terminated = true;
      const event = statementEvent(type, body, truncated, portals);
      if (event) session.statement(event.code, event.fields);
    },
  );
  let ended = false;
  let unpipe = () => {};
  const end = (reason: string, tellClient?: string) => {
    if (ended) return;
    ended = true;
    deps.cancelKeys.drop(key.pid, key.secret);
    session.end(terminated ? 'closed' : reason);
    client.stream.off('data', onClientData);
    unpipe();
    if (tellClient && client.stream.writable) {
      client.stream.end(errorResponse({ severity: 'FATAL', code: '57P01', message: tellClient }));
    } else {
      client.stream.end();
    }
    backend.destroy();
    setTimeout(() => client.stream.destroy(), 2_000).unref();
  };
  const onClientData = (chunk: Buffer) => {
    try {
      scanner.scan(chunk);
    } catch (error) {
      session.malformed((error as Error).message);
      return end('protocol violation', `protocol violation: ${(error as Error).message}`);
    }
    if (!backend.write(chunk)) {
      client.stream.pause();
      backend.once('drain', () => client.stream.resume());
    }
  };
  session.onWithdrawn((why) => end(why, `terminating connection: ${why}`));
  if (pending.length > 0) onClientData(pending);
  client.stream.on('data', onClientData);
  client.stream.resume();
  unpipe = coalescingPipe(backend, client.stream);
  client.stream.once('end', () => end('closed'));
  client.stream.once('close', () => end('closed'));
  client.stream.on('error', () => end('the client connection failed'));
  backend.once('end', () => end('the database closed the connection'));
  backend.once('close', () => end('the database closed the connection'));
  backend.on('error', () => end('the database connection failed'));
}

function fatal(stream: Duplex, fields: Omit<ErrorFields, 'severity'>): void {
  if (stream.writable) stream.end(errorResponse({ severity: 'FATAL', ...fields }));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
