import type pg from 'pg';
import { ADVISORY_LOCK_NAMESPACE, inTransaction } from '../../backend/pg-helpers.js';

export type AuditStoreLog = (level: 'warn', message: string, fields?: object) => void;

/**
 * Gives the text search (`data::text ILIKE '%text%'`) a pg_trgm GIN index on that very
 * expression. The planner then picks per query between it (a rare text: the matching rows,
 * sorted) and the time index (a common one: walk in page order until the page is full); either
 * way PostgreSQL rechecks ILIKE on each row, so the results are the scan's.
 *
 * Without the extension (not installed, or no right to create it), or if the build fails, the
 * search stays a scan: one warning, and the server starts as before. Returns whether the index
 * is there.
 *
 * Building the index over a big existing log takes a while (about 30 s per million events
 * on a shared 2-core machine) and holds writes to the table meanwhile, so it is done once, here,
 * under the lock the schema migration takes, with no statement timeout; later starts find it.
 */
export async function installTrigramIndex(
  pool: pg.Pool,
  quotedSchema: string,
  log: AuditStoreLog,
): Promise<boolean> {
  try {
    const missing = await inTransaction(pool, (client) => createIndex(client, quotedSchema));
    if (missing === undefined) return true;
    log('warn', 'audit text search runs without an index: pg_trgm could not be created', {
      reason: missing,
    });
  } catch (error) {
    log('warn', 'audit text search runs without an index: it could not be built', {
      reason: (error as Error).message,
    });
  }
  return false;
}

/** Returns why the extension is missing, or undefined once the index exists. */
async function createIndex(
  client: pg.PoolClient,
  quotedSchema: string,
): Promise<string | undefined> {
  await client.query('SELECT pg_advisory_xact_lock($1, 0)', [ADVISORY_LOCK_NAMESPACE]);
  await client.query('SAVEPOINT trigram');
  let reason = 'not installed';
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  } catch (error) {
    reason = (error as Error).message;
    await client.query('ROLLBACK TO SAVEPOINT trigram');
  }
  // Someone with the right may have created it already, in any schema: name that schema.
  const { rows } = await client.query<{ schema: string }>(
    `SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_trgm'`,
  );
  const extension = rows[0];
  if (!extension) return reason;
  await client.query('SET LOCAL statement_timeout = 0');
  await client.query(
    `CREATE INDEX IF NOT EXISTS audit_events_text ON ${quotedSchema}.audit_events
      USING gin ((data::text) ${extension.schema}.gin_trgm_ops)`,
  );
  return undefined;
}
