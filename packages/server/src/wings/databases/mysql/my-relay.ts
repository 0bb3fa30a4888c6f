import { coalescingPipe } from '../../../net/coalescing-pipe.js';
import { proxyShuttingDown } from '../../../modules/sessions/session-hub.js';
import { routeDenial, type DatabaseRoute, type RouteDenial } from '../db-access.js';
import { CommandGate } from './my-command-gate.js';
import type { MysqlBackend } from './my-connect.js';
import type { MysqlClient, MysqlEngineDeps } from './my-session.js';
import { Command, MysqlStatements, useStatementSchema } from './my-statements.js';
import { killText, proxyKillOf, type ProxyKill } from './my-threads.js';
import { ErrorCode, errPayload, packet, type MysqlError } from './my-wire.js';

/**
 * Short queries are held whole, so that a `KILL <id>` can be translated (my-threads.ts) and a
 * `USE name` judged: room for `USE` and a 64-character name, quoted.
 */
const heldQueryMaxBytes = 80;

/**
 * The session proper. The client's commands go through the gate (audited, some judged); the
 * server's answers are piped through untouched, except that the answer to a prepare is read on
 * the side for the statement's id.
 */
export function relayMysql(
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

  // `use` (COM_INIT_DB), or `USE name` sent as a statement of its own, judged as a connection's
  // default database is: a name the roles do not grant is the server's error 1044.
  const enterSchema = (schema: string, payload: Buffer, statement?: string) => {
    const denial = routeDenial(client.roleSet, { ...route, dbName: schema });
    if (denial) {
      session.statement('TDB02W', { query: statement ?? `USE ${schema}`, error: denial.message });
      answer(deniedError(denial));
      return undefined;
    }
    // The session now stands on the new database: the periodic recheck asks about it.
    route.dbName = schema;
    if (statement === undefined) session.statement('TMY06I', { schema_name: schema });
    else session.statement('TDB02I', { query: statement });
    return payload;
  };

  const dbName = () => client.db.metadata.name;
  /** A kill of one of the proxies' ids: the server's id for it, or refused as servers do. */
  const judgedKill = (kill: ProxyKill, text: string, serverId: number | undefined) => {
    if (serverId === undefined) {
      session.statement('TDB02W', { query: text, error: 'not a thread of this session' });
      answer({ code: 1094, sqlState: 'HY000', message: `Unknown thread id: ${kill.id}` });
      return undefined;
    }
    session.statement('TDB02I', { query: text });
    return Buffer.concat([Buffer.from([Command.query]), Buffer.from(killText(kill, serverId))]);
  };
  /** A kill held while the other proxies are asked, and where it stands among `forward`. */
  let elsewhere: { kill: ProxyKill; text: string; at: number } | undefined;

  /** A draining proxy's connection: anything but a kill (or the goodbye) ends it. */
  const refusedWhileDraining = (payload: Buffer) => {
    if (payload[0] === Command.quit) return false;
    const isKill = payload[0] === Command.query && proxyKillOf(payload.toString('utf8', 1));
    if (isKill) return false;
    answer({ code: ErrorCode.serverShutdown, sqlState: '08S01', message: proxyShuttingDown });
    setImmediate(() => end(proxyShuttingDown));
    return true;
  };

  const gate = new CommandGate({
    holds: (command, length) =>
      client.killOnly === true ||
      command === Command.initDb ||
      command === Command.changeUser ||
      (command === Command.query && length <= heldQueryMaxBytes),
    judge: (payload) => {
      if (client.killOnly && refusedWhileDraining(payload)) return undefined;
      if (payload[0] === Command.query) {
        const text = payload.toString('utf8', 1);
        const schema = useStatementSchema(text);
        if (schema !== undefined) return enterSchema(schema, payload, text);
        const kill = proxyKillOf(text);
        if (!kill) {
          session.statement('TDB02I', { query: text });
          return payload;
        }
        if (!deps.threads.holds(kill.id) && deps.peers) {
          // Another proxy's id, perhaps: asked of them, the kill waits (onClientData).
          elsewhere = { kill, text, at: forward.length };
          return undefined;
        }
        return judgedKill(kill, text, deps.threads.serverIdFor(kill.id, client.user, dbName()));
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
      return enterSchema(payload.toString('utf8', 1), payload);
    },
    passed: (payload, truncated) => {
      if (payload[0] === Command.quit) terminated = true;
      if (payload[0] === Command.stmtPrepare) readPrepareAnswer(payload.toString('utf8', 1));
      const event = statements.event(payload, truncated);
      if (event) session.statement(event.code, event.fields);
    },
  });

  let ended = false;
  let unpipe = () => {};
  const end = (reason: string, tellClient?: string) => {
    if (ended) return;
    ended = true;
    onEnd();
    session.end(terminated ? 'closed' : reason);
    client.stream.off('data', onClientData);
    unpipe();
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
    if (elsewhere) return killElsewhere(elsewhere, forward.splice(0));
    let flowing = true;
    for (const piece of forward) flowing = socket.write(piece) && flowing;
    if (!flowing) {
      client.stream.pause();
      socket.once('drain', () => client.stream.resume());
    }
  };
  // The client waits for the kill's answer; whatever came after it waits too, in order.
  const killElsewhere = (held: NonNullable<typeof elsewhere>, pieces: Buffer[]) => {
    elsewhere = undefined;
    client.stream.pause();
    for (const piece of pieces.slice(0, held.at)) socket.write(piece);
    void deps
      .peers!.mysqlThread(held.kill.id, client.user, dbName())
      .catch(() => undefined)
      .then((serverId) => {
        if (ended) return;
        const payload = judgedKill(held.kill, held.text, serverId);
        if (payload) socket.write(packet(0, payload));
        for (const piece of pieces.slice(held.at)) socket.write(piece);
        client.stream.resume();
      });
  };
  session.onWithdrawn((why) => end(why, `terminating connection: ${why}`));
  if (backend.rest.length > 0) client.stream.write(backend.rest);
  if (pending.length > 0) onClientData(pending);
  client.stream.on('data', onClientData);
  client.stream.resume();
  unpipe = coalescingPipe(socket, client.stream);
  client.stream.once('end', () => end('closed'));
  client.stream.once('close', () => end('closed'));
  client.stream.on('error', () => end('the client connection failed'));
  socket.once('end', () => end('the database closed the connection'));
  socket.once('close', () => end('the database closed the connection'));
  socket.on('error', () => end('the database connection failed'));
}

/** The error a refused route gets: a database name is 1044, the rest 1045, as servers say. */
export function deniedError(denial: RouteDenial): MysqlError {
  return denial.refused === 'name'
    ? { code: ErrorCode.dbAccessDenied, sqlState: '42000', message: denial.message }
    : { code: ErrorCode.accessDenied, sqlState: '28000', message: denial.message };
}
