import type { ConnectionTrace } from '@postern/contracts';
import pg from 'pg';
import { answerDeadline } from './answer-deadline.js';
import { servedInProcess } from './console/in-process-stream.js';
import { MysqlPacketReader } from './mysql/my-reader.js';
import { Capability, ErrorCode, handshakeResponse, packet, parseErr } from './mysql/my-wire.js';
import type { DatabaseConnection, DatabaseEngine } from './db-connect.routes.js';

/** Which step a failed sign-in belongs to, and what the database said. */
export interface SignInFailure {
  step: Extract<ConnectionTrace['trace_type'], 'database_db_user' | 'database_db_name'>;
  error: string;
}

/** PostgreSQL's codes for a database that is not there (3D000) or not open to the user (42501). */
const nameCodes = new Set(['3D000', '42501']);
/** MySQL's: an unknown database (1049), one the user may not open (1044). */
const mysqlNameCodes = new Set([1049, ErrorCode.dbAccessDenied]);

/**
 * Discover's last step for a PostgreSQL database: signs in as the caller, with the database user
 * and name they asked about, through the same engine psql's connections take (their roles, the
 * database client CA's certificate, the database's own pg_hba). It is a real session, audited in
 * their name, closed at once. Undefined when it signed in; otherwise the step that failed.
 */
export async function signInToPostgres(
  engine: DatabaseEngine,
  connection: Omit<DatabaseConnection, 'stream'>,
  route: { dbUser: string; dbName: string },
  timeoutMs: number,
): Promise<SignInFailure | undefined> {
  // The SQL console's way in: the `pg` driver takes the client end as a socket.
  const client = servedInProcess((stream) => engine({ ...connection, stream }));
  const pgClient = new pg.Client({
    user: route.dbUser,
    database: route.dbName,
    stream: () => client as never,
    connectionTimeoutMillis: timeoutMs,
  });
  // A late error (the engine closing its end) after the answer is no news.
  pgClient.on('error', () => undefined);
  const { deadline, clear } = answerDeadline(timeoutMs);
  try {
    await Promise.race([pgClient.connect().then(() => pgClient.query('select 1')), deadline]);
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    const step = code && nameCodes.has(code) ? 'database_db_name' : 'database_db_user';
    return { step, error: message ?? String(error) };
  } finally {
    clear();
    client.destroy();
    void pgClient.end().catch(() => undefined);
  }
}

/**
 * The same for MySQL and MariaDB: the handshake a client makes, through the engine, which signs
 * in to the database with the client certificate for that user and answers with its OK or its
 * error (the password is Postern's business, so none is sent).
 */
export async function signInToMysql(
  engine: DatabaseEngine,
  connection: Omit<DatabaseConnection, 'stream'>,
  route: { dbUser: string; dbName: string },
  timeoutMs: number,
): Promise<SignInFailure | undefined> {
  const client = servedInProcess((stream) => engine({ ...connection, stream }));
  const reader = new MysqlPacketReader(client);
  const capabilities =
    Capability.protocol41 |
    Capability.secureConnection |
    Capability.pluginAuth |
    Capability.longPassword |
    (route.dbName ? Capability.connectWithDb : 0);
  const exchange = async (): Promise<SignInFailure | undefined> => {
    await reader.packet();
    const response = handshakeResponse({
      capabilities,
      maxPacket: 1 << 24,
      charset: 45,
      user: route.dbUser,
      authResponse: Buffer.alloc(0),
      database: route.dbName,
      authPlugin: 'mysql_native_password',
      attributes: Buffer.alloc(0),
    });
    client.write(packet(1, response));
    const answer = await reader.packet();
    if (answer.payload[0] === 0x00) return undefined;
    if (answer.payload[0] !== 0xff) throw new Error('the database answered as no MySQL does');
    const error = parseErr(answer.payload);
    const step = mysqlNameCodes.has(error.code) ? 'database_db_name' : 'database_db_user';
    return { step, error: `${error.message} (${error.code})` };
  };
  const { deadline, clear } = answerDeadline(timeoutMs);
  try {
    return await Promise.race([exchange(), deadline]);
  } catch (error) {
    return { step: 'database_db_user', error: (error as Error).message };
  } finally {
    clear();
    // COM_QUIT, then away: the engine ends the session as a client leaving would.
    client.end(packet(0, Buffer.from([0x01])));
  }
}
