import pg from 'pg';
import { StorageBusyError } from './storage-busy.js';

/** First key of every advisory lock Postern takes, so they do not collide with other apps' locks. */
export const ADVISORY_LOCK_NAMESPACE = 0x506f7374; // "Post"

// Lower-case identifiers only, so names never need escaping and channel names stay < 63 bytes.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** Validates a schema name and returns it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `invalid PostgreSQL schema ${JSON.stringify(schema)}: use 1-48 of a-z, 0-9 and _, not starting with a digit`,
    );
  }
  return `"${schema}"`;
}

/**
 * How long a request may wait on a database that is down or stuck: opening a connection, and one
 * statement. Past them it fails (503 storage busy) instead of holding requests indefinitely.
 */
export const PG_CONNECT_TIMEOUT_MS = 3000;
export const PG_STATEMENT_TIMEOUT_MS = 15_000;
/**
 * How long the client waits for any answer. The server cuts a slow statement first
 * (statement_timeout); this is for a database that has gone silent (a host gone, a cable cut:
 * no reset, no error), which cannot answer at all and would hold the request for as long as TCP
 * keeps the socket.
 */
export const PG_QUERY_TIMEOUT_MS = PG_STATEMENT_TIMEOUT_MS + 5_000;
/** node-postgres's per-query read timeout: the longest a timer can wait (about 24 days). */
const NO_CLIENT_TIMEOUT_MS = 2 ** 31 - 1;

/** node-postgres's message when a query's answer did not come within its read timeout. */
const readTimeoutMessage = 'Query read timeout';

/**
 * A statement allowed to run as long as it takes (an index build that sets
 * `statement_timeout = 0`): the pool's client-side timeout would otherwise cut it.
 */
export function unboundedQuery(text: string): pg.QueryConfig {
  // node-postgres reads `query_timeout` per query; its types know it only on the client.
  return { text, query_timeout: NO_CLIENT_TIMEOUT_MS } as pg.QueryConfig;
}

export function createPool(
  url: string,
  max = 10,
  queryTimeoutMs: number = PG_QUERY_TIMEOUT_MS,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    query_timeout: queryTimeoutMs,
  });
  // An idle connection that dies (server restart) must not crash the process; the pool
  // drops it and the next query opens a new one.
  pool.on('error', () => {});
  return pool;
}

// SQLSTATEs of a database that is away for now: connection exceptions (class 08), shutting down
// or starting up (57P01-57P03), a statement cut by statement_timeout (57014), no free connection.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|57014|53300)$/;
const UNAVAILABLE_NODE_CODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
// node-postgres reports a dropped or never-made connection with plain messages only.
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|Query read timeout)/;

/** Whether an error says the database is unreachable for now, rather than that a query is wrong. */
export function isPgUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODE.has(code))
  )
    return true;
  if (error instanceof AggregateError) return error.errors.some(isPgUnavailable);
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/** Runs a database call; an unreachable database becomes StorageBusyError (503, no detail). */
export async function unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isPgUnavailable(error)) throw new StorageBusyError();
    throw error;
  }
}

/** Runs `fn` in a transaction; rolls back (and discards a broken connection) on error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection that dies while checked out (the server restarts mid-transaction) emits 'error'
  // on the client, and pg-pool listens only while a client is idle: without this listener the
  // error is unhandled and the process exits.
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A query that timed out on the client still holds the connection: a ROLLBACK would only
    // wait behind it. Dropping the connection ends the transaction on the server as well.
    if (error instanceof Error && error.message === readTimeoutMessage) broken ??= error;
    if (broken) throw error;
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/**
 * Creates a schema and its tables. `IF NOT EXISTS` alone is not safe when several servers
 * start at once (two CREATEs can both pass the check and one fails on a unique index of the
 * catalog), so creators take one database-wide advisory lock and run one after another.
 */
export async function migrate(pool: pg.Pool, schema: string, ddl: string): Promise<void> {
  const quoted = quoteSchema(schema);
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, 0)', [ADVISORY_LOCK_NAMESPACE]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(ddl);
  });
}

/**
 * A pool whose schema and tables exist. Every PostgreSQL store opens this way; a failed
 * migration closes the pool, so a bad URL or permission does not leave connections behind.
 */
export async function openMigratedPool(url: string, schema: string, ddl: string): Promise<pg.Pool> {
  const pool = createPool(url);
  try {
    await migrate(pool, schema, ddl);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}
