import type pg from 'pg';
import {
  ADVISORY_LOCK_NAMESPACE,
  inTransaction,
  unboundedQuery,
} from '../../backend/pg-helpers.js';

export type AuditStoreLog = (level: 'warn', message: string, fields?: object) => void;

/**
 * pg_trgm reads text as words of letters and digits: `node-17"` is looked up as the words `node`
 * and `17`, and `17` is in a twentieth of all timestamps, so a search for it visited eight rows
 * for every one it found (43,738 for 5,000 at 1M events, 215 ms). So the index is over the
 * event's text with the punctuation searches hold most often turned into letters that stand for
 * it (`node-17"` becomes `nodej17q`), and its trigrams span that punctuation. A search looks for
 * its text folded the same way, which finds every row holding the text and a few more (a letter
 * where the search has the punctuation), then for the text itself: 5,835 rows visited, 60 ms.
 *
 * `replace` rather than `translate`: the same fold, at a fifth of the cost per row (translate
 * looks up each character of the text in its list), and every candidate row is folded again
 * when the index is rechecked.
 */
const punctuationLetters: readonly (readonly [string, string])[] = [
  ['"', 'q'],
  ['-', 'j'],
  [':', 'x'],
  [',', 'k'],
  ['.', 'v'],
  [' ', 'z'],
  ['/', 'w'],
  ['@', 'y'],
];

/** The indexed expression over `text` (SQL); the search's condition must spell it the same. */
export function foldedTextSql(text: string): string {
  return punctuationLetters.reduce(
    (sql, [mark, letter]) => `replace(${sql}, '${mark}', '${letter}')`,
    text,
  );
}

/** A search pattern folded as foldedTextSql folds the text (LIKE's `%`, `_` and `\` stay). */
export function foldText(pattern: string): string {
  return punctuationLetters.reduce(
    (text, [mark, letter]) => text.replaceAll(mark, letter),
    pattern,
  );
}

/** The index, and the one an earlier release built on the unfolded text (dropped when found). */
const textIndexName = 'audit_events_folded_text';
const unfoldedTextIndexName = 'audit_events_text';

/**
 * Gives the text search a pg_trgm GIN index on the folded text (above). The planner then picks
 * per query between it (a rare text: the matching rows, sorted) and the time index (a common
 * one: walk in page order until the page is full, which the store chooses by the planner's
 * estimates); either way the text itself is checked on each row, so the results are the scan's.
 *
 * Without the extension (not installed, or no right to create it), or if the build fails, the
 * search stays a scan: one warning, and the server starts as before. Returns whether the index
 * is there.
 *
 * Building the index over a big existing log takes a while (about 45 s per million events
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
  // As long as it takes, on the client too: over millions of events the build takes minutes.
  await client.query(
    unboundedQuery(`CREATE INDEX IF NOT EXISTS ${textIndexName} ON ${quotedSchema}.audit_events
      USING gin ((${foldedTextSql('data::text')}) ${extension.schema}.gin_trgm_ops)`),
  );
  await client.query(`DROP INDEX IF EXISTS ${quotedSchema}.${unfoldedTextIndexName}`);
  return undefined;
}
