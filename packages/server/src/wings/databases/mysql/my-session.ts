import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { routeDenial, type DatabaseRoute, type RouteDenial } from '../db-access.js';
import type { DatabaseClientCa } from '../db-client-ca.js';
import type { DatabaseRecord } from '../db-kind.js';
import type { DatabaseSessionAudit } from '../db-session-audit.js';
import type { DialDatabase } from '../postgres/pg-connect.js';
import { CommandGate } from './my-command-gate.js';
import { connectMysql, DatabaseRefusal, type MysqlBackend } from './my-connect.js';
import { MysqlPacketReader } from './my-reader.js';
import { Command, MysqlStatements } from './my-statements.js';
import type { MysqlThreads } from './my-threads.js';
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
} from './my-wire.js';

export interface MysqlEngineDeps {
  ca: DatabaseClientCa;
  dial: DialDatabase;
  threads: MysqlThreads;
}

/** One client connection, already authenticated as a Postern user allowed to reach `db`. */
export interface MysqlClient {
  stream: Duplex;
  user: string;
  roleSet: RoleSet;
  db: DatabaseRecord;
  open: (route: DatabaseRoute) => DatabaseSessionAudit;
  refuse: (route: DatabaseRoute, why: string) => void;
}

/** The version the proxy's greeting names: the real server's is known only after the route. */
const proxyServerVersion = '8.0.36-Postern';
/** utf8mb4_general_ci, which both MySQL and MariaDB know. */
const utf8mb4 = 45;
/** Short queries are held whole so that a `KILL <id>` can be translated (my-threads.ts). */
const killQueryMaxBytes = 64;

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
  let backend: MysqlBackend | undefined;
  const connectionId = deps.threads.issue();
  try {
    client.stream.write(
      packet(
        0,
        greeting({
          serverVersion: proxyServerVersion,
          connectionId,
          capabilities: offeredCapabilities,
          charset: utf8mb4,
          status: 0x0002,
          // Printable and without NULs, as servers make theirs: clients hash the password with it.
          authData: Buffer.from(randomBytes(20).map((byte) => 33 + (byte % 94))),
          authPlugin: 'mysql_native_password',
        }),
      ),
    );
    const answer = await reader.packet();
    const response = parseHandshakeResponse(answer.payload);
    if (response.capabilities & Capability.ssl) {
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
    };
    const denial: RouteDenial | undefined = response.user
      ? routeDenial(client.roleSet, route)
      : { refused: 'user', message: 'name a database user' };
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
    relay(client, route, reader.release(), backend, () => deps.threads.drop(connectionId), deps);
  } catch (error) {
    reader.release();
    backend?.socket.destroy();
    if (error instanceof MysqlWireError) {
      return fail(client.stream, 2, {
        code: ErrorCode.handshakeError,
        sqlState: '08S01',
        message: `protocol violation: ${error.message}`,
      });
    }
    client.stream.destroy();
  }
}

function deniedError(denial: RouteDenial): MysqlError {
  return denial.refused === 'name'
    ? { code: ErrorCode.dbAccessDenied, sqlState: '42000', message: denial.message }
    : { code: ErrorCode.accessDenied, sqlState: '28000', message: denial.message };
}

/**
 * The session proper. The client's commands go through the gate (audited, some judged); the
 * server's answers are piped through untouched, except that the answer to a prepare is read on
 * the side for the statement's id.
 */
function relay(
  client: MysqlClient,
  route: DatabaseRoute,
  pending: Buffer,
  backend: MysqlBackend,
  onEnd: () => void,
  deps: MysqlEngineDeps,
): void {
  const { socket } = backend;
  const session = client.open(route);
  const statements = new MysqlStatements();
  // A client that says COM_QUIT closed the session, whoever's socket closes first.
  let terminated = false;
  const answer = (error: MysqlError) => client.stream.write(packet(1, errPayload(error)));

  // Clients wait for each answer before the next command, so when a prepare goes out, every
  // earlier answer has passed and the server's next packet is the prepare's.
  const readPrepareAnswer = (query: string) => {
    const got: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      got.push(chunk);
      const all = Buffer.concat(got);
      if (all.length < 4) return;
      const length = all.readUIntLE(0, 3);
      if (all.length < 4 + Math.min(length, 12)) return;
      socket.off('data', onData);
      statements.prepared(query, all.subarray(4, 4 + Math.min(length, 12)));
    };
    socket.on('data', onData);
  };

  const gate = new CommandGate({
    holds: (command, length) =>
      command === Command.initDb ||
      command === Command.changeUser ||
      (command === Command.query && length <= killQueryMaxBytes),
    judge: (payload) => {
      if (payload[0] === Command.query) {
        const text = payload.toString('utf8', 1);
        const translated = deps.threads.translateKill(text, client.user, client.db.metadata.name);
        if (translated === undefined) {
          session.statement('TDB02W', { query: text, error: 'not a thread of this session' });
          answer({
            code: 1094,
            sqlState: 'HY000',
            message: `Unknown thread id: ${text.replace(/\D/g, '')}`,
          });
          return undefined;
        }
        session.statement('TDB02I', { query: text });
        return translated === text
          ? payload
          : Buffer.concat([Buffer.from([Command.query]), Buffer.from(translated, 'utf8')]);
      }
      if (payload[0] === Command.changeUser) {
        session.statement('TDB02W', {
          query: 'COM_CHANGE_USER',
          error: 'changing the database user inside a session is refused',
        });
        answer({
          code: ErrorCode.accessDenied,
          sqlState: '28000',
          message: 'Postern refuses COM_CHANGE_USER: connect again as the other database user',
        });
        return undefined;
      }
      const schema = payload.toString('utf8', 1);
      const denial = routeDenial(client.roleSet, { ...route, dbName: schema });
      if (denial) {
        session.statement('TDB02W', { query: `USE ${schema}`, error: denial.message });
        answer(deniedError(denial));
        return undefined;
      }
      // The session now stands on the new database: the periodic recheck asks about it.
      route.dbName = schema;
      session.statement('TMY06I', { schema_name: schema });
      return payload;
    },
    passed: (payload, truncated) => {
      if (payload[0] === Command.quit) terminated = true;
      if (payload[0] === Command.stmtPrepare) readPrepareAnswer(payload.toString('utf8', 1));
      const event = statements.event(payload, truncated);
      if (event) session.statement(event.code, event.fields);
    },
  });

  let ended = false;
  const end = (reason: string, tellClient?: string) => {
    if (ended) return;
    ended = true;
    onEnd();
    session.end(terminated ? 'closed' : reason);
    client.stream.off('data', onClientData);
    socket.unpipe(client.stream);
    if (tellClient && client.stream.writable) {
      client.stream.end(
        packet(
          1,
          errPayload({ code: ErrorCode.connectionKilled, sqlState: '70100', message: tellClient }),
        ),
      );
    } else {
      client.stream.end();
    }
    socket.destroy();
    setTimeout(() => client.stream.destroy(), 2_000).unref();
  };
  const forward: Buffer[] = [];
  const onClientData = (chunk: Buffer) => {
    forward.length = 0;
    try {
      gate.push(chunk, forward);
    } catch (error) {
      session.malformed((error as Error).message);
      return end('protocol violation', `protocol violation: ${(error as Error).message}`);
    }
    let flowing = true;
    for (const piece of forward) flowing = socket.write(piece) && flowing;
    if (!flowing) {
      client.stream.pause();
      socket.once('drain', () => client.stream.resume());
    }
  };
  session.onWithdrawn((why) => end(why, `terminating connection: ${why}`));
  if (backend.rest.length > 0) client.stream.write(backend.rest);
  if (pending.length > 0) onClientData(pending);
  client.stream.on('data', onClientData);
  client.stream.resume();
  socket.pipe(client.stream);
  client.stream.once('end', () => end('closed'));
  client.stream.once('close', () => end('closed'));
  client.stream.on('error', () => end('the client connection failed'));
  socket.once('end', () => end('the database closed the connection'));
  socket.once('close', () => end('the database closed the connection'));
  socket.on('error', () => end('the database connection failed'));
}

function fail(stream: Duplex, seq: number, error: MysqlError): void {
  if (stream.writable) stream.end(packet(seq, errPayload(error)));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
