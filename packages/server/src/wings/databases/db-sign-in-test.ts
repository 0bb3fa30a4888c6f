import type { ConnectionTrace } from '@postern/contracts';
import pg from 'pg';
import { inProcessPair } from './console/in-process-stream.js';
import type { DatabaseConnection, DatabaseEngine } from './db-connect.routes.js';

/** Which step a failed sign-in belongs to, and what the database said. */
export interface SignInFailure {
  step: Extract<ConnectionTrace['trace_type'], 'database_db_user' | 'database_db_name'>;
  error: string;
}

/** PostgreSQL's codes for a database that is not there (3D000) or not open to the user (42501). */
const nameCodes = new Set(['3D000', '42501']);

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
  // The SQL console's pair: the `pg` driver takes its client end as a socket.
  const { client, server } = inProcessPair();
  void engine({ ...connection, stream: server }).catch(() => undefined);
  const pgClient = new pg.Client({
    user: route.dbUser,
    database: route.dbName,
    stream: () => client as never,
    connectionTimeoutMillis: timeoutMs,
  });
  // A late error (the engine closing its end) after the answer is no news.
  pgClient.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([pgClient.connect().then(() => pgClient.query('select 1')), deadline]);
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    const step = code && nameCodes.has(code) ? 'database_db_name' : 'database_db_user';
    return { step, error: message ?? String(error) };
  } finally {
    clearTimeout(timer);
    client.destroy();
    void pgClient.end().catch(() => undefined);
  }
}
