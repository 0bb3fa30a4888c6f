import type Database from 'better-sqlite3';
import type { CheckedQuery } from './audit.common.js';
import type { SqliteTextIndex } from './audit-text.sqlite.js';
import { TextIndexReader } from './audit-text-reader.sqlite.js';
import type { Key, KeyRange } from './audit-text-sql.sqlite.js';
import {
  changedRowsSql,
  initialRange,
  textIndexSql,
  textScanSql,
  textScanStopSql,
  timeSpan,
} from './audit-text-sql.sqlite.js';

/**
 * One page of a text search in SQLite, using the text index (audit-text.sqlite.ts) next to the
 * plain scan, with the same result as the scan alone: the scan's LIKE decides every row.
 *
 * Neither way wins alone. The scan walks the time index in page order and checks each row's
 * JSON: quick for a common text, a walk through the whole range for a rare one. The index
 * finds the few columns (runs of 16 ids) that may hold a rare text at once, but in id order, so
 * their rows must be fetched and sorted, and a common text is in every column. So both run in
 * turns, each taking a round twice as large as its last, the index being given a set multiple
 * of the scan's time: a page costs at most about 1 + 1/share times what the index alone would,
 * or 1 + share times the scan alone. A sample of the index where the page starts says which way
 * leads: where the text may be in a quarter of the columns or more, the scan goes first (its
 * first round then fills a page) and the share is 4; otherwise the index goes first, the share
 * is 16 and the scan starts small (it stays in case the sample misjudged the rest of the range).
 * Both work from the newest end of the page order (oldest for `asc`), and the page is complete
 * as soon as no row either has left could come before its end.
 */

export interface TextSearchRow {
  id: number;
  time_ms: number;
  data: string;
}

/** Which way a search may go: 'auto' races both; the others are for tests and the bench. */
export type TextSearchStrategy = 'auto' | 'scan' | 'index';

/** The index knows trigrams: a text needs three UTF-16 code units (as it hashes them). */
export function usesTextIndex(text: string): boolean {
  return text.length >= 3;
}

/** The sample: this many blocks where the page starts. */
const SAMPLE_BLOCKS = 2;
/** A text whose columns are this share of the sample or more may be common. */
const COMMON = 1 / 4;
/**
 * At most this many blocks per index round: a round cannot be cut short, and a text rare where
 * the page starts may be in every row further on (a round of 64 blocks reads at most 262,144
 * candidates; reading 10M ids takes 38 rounds instead of 12).
 */
const MAX_ROUND_BLOCKS = 64;

/** Prepares a statement, or hands back the one made for the same SQL before. */
export type Prepare = (sql: string) => Database.Statement;

export function searchWithTextIndex(
  prepare: Prepare,
  index: SqliteTextIndex,
  q: CheckedQuery & { searchText: string; searchPattern: string },
  strategy: 'auto' | 'index',
): TextSearchRow[] {
  const desc = q.order === 'desc';
  const need = q.limit + 1;
  const types = q.eventTypes ?? [];
  /** Negative when `x` comes first in page order. */
  const order = (x: Key, y: Key) => (desc ? -1 : 1) * (x.time - y.time || x.id - y.id);
  const keyOf = (row: TextSearchRow): Key => ({ time: row.time_ms, id: row.id });

  const whole = initialRange(q);
  /** The scan has read every row up to this key (none yet while undefined). */
  let scanned: Key | undefined;
  let scanDone = false;
  const remaining = (): KeyRange =>
    scanned === undefined
      ? whole
      : desc
        ? { lower: whole.lower, upper: { key: scanned, inclusive: false } }
        : { lower: { key: scanned, inclusive: false }, upper: whole.upper };

  /** The first `need` rows found so far, in page order; both ways may find the same row. */
  let found: TextSearchRow[] = [];
  const keep = (rows: TextSearchRow[]) => {
    // Each query returns its rows in page order already; only merging needs a sort.
    if (found.length === 0) {
      found = rows.slice(0, need);
      return;
    }
    const byId = new Map([...found, ...rows].map((row) => [row.id, row]));
    found = [...byId.values()].sort((x, y) => order(keyOf(x), keyOf(y))).slice(0, need);
  };

  // Rows changed by hand may say what their columns' bits do not: LIKE reads them all.
  const changed = changedRowsSql(whole, types, q.order);
  keep(prepare(changed.sql).all(...changed.params, q.searchPattern, need) as TextSearchRow[]);

  // Blocks that may hold rows of the page's time span, in the order their rows could come: the
  // index reads a growing number of them per round; the first ones are sampled.
  const reader = new TextIndexReader(index, q.searchText);
  const span = timeSpan(whole);
  const blocks = reader.blocks(prepare, span.from, span.to);
  blocks.sort((x, y) =>
    desc
      ? y.max_time - x.max_time || y.block - x.block
      : x.min_time - y.min_time || x.block - y.block,
  );
  if (blocks.length === 0) return found;
  const { columnShift, timeShift } = index.shape;
  const sampled = blocks.slice(0, SAMPLE_BLOCKS).map((b) => b.block);
  const rowsIn = prepare('SELECT count(*) FROM audit_events WHERE id >= ? AND id < ?').pluck();
  const sampleRows = sampled.reduce(
    (sum, block) =>
      sum + (rowsIn.get(block * 2 ** timeShift, (block + 1) * 2 ** timeShift) as number),
    0,
  );
  const mayBeCommon = reader.choose(sampled, Math.ceil(sampleRows / 2 ** columnShift)) >= COMMON;
  const indexShare = mayBeCommon ? 4 : 16;

  // The scan: the next `scanRows` rows in page order (found in the time index alone), then the
  // ones of them whose JSON matches.
  let scanRows = mayBeCommon ? Math.max(need / COMMON, 1000) : 1000;
  const scanRound = () => {
    const range = remaining();
    const stopAt = textScanStopSql(range, types, q.order);
    const stop = prepare(stopAt.sql).get(...stopAt.params, scanRows - 1) as
      { time_ms: number; id: number } | undefined;
    const stopKey = stop && { time: stop.time_ms, id: stop.id };
    const part: KeyRange = !stopKey
      ? range
      : desc
        ? { lower: { key: stopKey, inclusive: true }, upper: range.upper }
        : { lower: range.lower, upper: { key: stopKey, inclusive: true } };
    const scan = textScanSql(part, types, q.order);
    keep(prepare(scan.sql).all(...scan.params, q.searchPattern, need) as TextSearchRow[]);
    scanned = stopKey;
    scanDone = !stopKey;
    scanRows *= 2;
  };

  // The index: the columns of the next blocks that may hold the text, their rows by LIKE.
  let nextBlock = 0;
  let roundBlocks = 1;
  const indexRound = () => {
    const taken = blocks.slice(nextBlock, nextBlock + roundBlocks).map((b) => b.block);
    nextBlock += taken.length;
    const columns = reader.candidates(taken);
    if (columns.length > 0) {
      const lookup = textIndexSql(remaining(), types, q.order);
      const rows = prepare(lookup.sql).all(
        JSON.stringify(columns),
        2 ** columnShift - 1,
        ...lookup.params,
        q.searchPattern,
        need,
      ) as TextSearchRow[];
      keep(rows);
      // Where a round alone filled a page, a larger one would only read more candidates.
      if (rows.length >= need) return;
    }
    roundBlocks = Math.min(roundBlocks * 2, MAX_ROUND_BLOCKS);
  };

  /** Whether no row left unread by both ways could come before the page's last row. */
  const complete = () => {
    if (scanDone || nextBlock >= blocks.length) return true;
    const last = found[need - 1];
    if (!last) return false;
    if (scanned && order(keyOf(last), scanned) <= 0) return true;
    const next = blocks[nextBlock]!;
    return desc ? last.time_ms > next.max_time : last.time_ms < next.min_time;
  };

  const spentMs = { scan: 0, index: 0 };
  while (!complete()) {
    const indexTurn =
      strategy === 'index' ||
      spentMs.index < spentMs.scan * indexShare ||
      (spentMs.index === 0 && !mayBeCommon);
    const turn = indexTurn ? 'index' : 'scan';
    const started = performance.now();
    if (turn === 'scan') scanRound();
    else indexRound();
    spentMs[turn] += performance.now() - started;
  }
  return found;
}
