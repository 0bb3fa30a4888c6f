import pg from 'pg';

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

export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection that dies (server restart) must not crash the process; the pool
  // drops it and the next query opens a new one.
  pool.on('error', () => {});
  return pool;
}

/** Runs `fn` in a transaction; rolls back (and discards a broken connection) on error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
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
