import type Database from 'better-sqlite3';
import type { CheckedQuery } from './audit.common.js';
import { TEXT_INDEX, TIME_BLOCKS, TIME_BLOCK_SHIFT } from './audit-text.sqlite.js';
import type { Key, KeyRange } from './audit-text-sql.sqlite.js';
import {
  initialRange,
  textIndexSql,
  textScanSql,
  textScanStopSql,
  timeSpan,
} from './audit-text-sql.sqlite.js';

/**
 * One page of a text search in SQLite, using the trigram index (audit-text.sqlite.ts) next to
 * the plain scan, with the same result as the scan alone: the scan's LIKE decides every row.
 *
 * Neither way wins alone. The scan walks the time index in page order and checks each row's
 * JSON: quick for a common text, a walk through the whole range for a rare one. The index
 * finds a rare text's rows at once, but in id order, so they must be fetched and sorted, and a
 * common text has millions. So both run in turns, each taking a round twice as large as its
 * last, the index being given a set multiple of the scan's time: a page costs at most about
 * 1 + 1/share times what the index alone would, or 1 + share times the scan alone. A sample of
 * the text's trigrams in the rows where the page starts says which way leads: where the text
 * may be in a quarter of them or more, the scan goes first (its first round then fills a page)
 * and the share is 4; otherwise the index goes first, the share is 16 and the scan starts small
 * (it stays in case the sample misjudged the rest of the range). Both work from the newest end
 * of the page order (oldest for `asc`), and the page is complete as soon as no row either has
 * left could come before its end.
 */

export interface TextSearchRow {
  id: number;
  time_ms: number;
  data: string;
}

/** Which way a search may go: 'auto' races both; the others are for tests and the bench. */
export type TextSearchStrategy = 'auto' | 'scan' | 'index';

/** The trigram tokenizer needs three characters; control characters never occur in JSON text. */
export function usesTextIndex(text: string): boolean {
  return [...text].length >= 3 && !/\p{Cc}/u.test(text);
}

/** The trigram sample: in this many blocks where the page starts, at most so many trigrams. */
const SAMPLE_BLOCKS = 2;
const MAX_SAMPLED_TRIGRAMS = 24;
/** A trigram in this share of the sample or more counts as common. */
const COMMON = 1 / 4;
/** At most this many id ranges per index round; nearby ranges are read as one. */
const MAX_ID_RANGES = 8;
/**
 * At most this many blocks per index round: a round cannot be cut short, and a text rare where
 * the page starts may be in every row further on (a round of 64 blocks reads at most 262,144
 * candidates, about half a second; reading 10M ids takes 38 rounds instead of 12).
 */
const MAX_ROUND_BLOCKS = 64;

/** Prepares a statement, or hands back the one made for the same SQL before. */
export type Prepare = (sql: string) => Database.Statement;

export function searchWithTextIndex(
  prepare: Prepare,
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

  // Blocks that may hold rows of the page's time span, in the order their rows could come: the
  // index reads a growing number of them per round; the first ones are sampled.
  const span = timeSpan(whole);
  const blocks = prepare(
    `SELECT block, min_time, max_time FROM ${TIME_BLOCKS} WHERE max_time >= ? AND min_time <= ?`,
  ).all(span.from, span.to) as { block: number; min_time: number; max_time: number }[];
  blocks.sort((x, y) =>
    desc
      ? y.max_time - x.max_time || y.block - x.block
      : x.min_time - y.min_time || x.block - y.block,
  );
  if (blocks.length === 0) return [];
  const sampled = blocks.slice(0, SAMPLE_BLOCKS).map((b) => b.block);
  const trigrams = sampleTrigrams(prepare, q.searchText, idRanges(sampled));
  const mayBeCommon = trigrams.rarestShare >= COMMON;
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

  // The index.
  let nextBlock = 0;
  let roundBlocks = 1;
  const indexRound = () => {
    const taken = blocks.slice(nextBlock, nextBlock + roundBlocks).map((b) => b.block);
    nextBlock += taken.length;
    const lookup = textIndexSql(remaining(), types, q.order);
    const select = prepare(lookup.sql);
    let dense = false;
    for (const [first, last] of idRanges(taken)) {
      const [firstId, lastId] = blockIds(first, last);
      const rows = select.all(
        trigrams.match,
        firstId,
        lastId,
        ...lookup.params,
        q.searchPattern,
        need,
      ) as TextSearchRow[];
      dense ||= rows.length >= need;
      keep(rows);
    }
    // Where a round alone filled a page, a larger one would only read more candidates.
    if (!dense) roundBlocks = Math.min(roundBlocks * 2, MAX_ROUND_BLOCKS);
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

/** Block numbers as runs of neighbours, at most MAX_ID_RANGES of them (closest runs joined). */
function idRanges(blocks: number[]): [number, number][] {
  const sorted = [...blocks].sort((x, y) => x - y);
  const runs: [number, number][] = [];
  for (const block of sorted) {
    const last = runs.at(-1);
    if (last && block === last[1] + 1) last[1] = block;
    else runs.push([block, block]);
  }
  if (runs.length <= MAX_ID_RANGES) return runs;
  // Join across the smallest gaps: the blocks in them are read early, and found rows are kept
  // by id, so a row read twice counts once.
  const gaps = runs.slice(1).map((run, i) => run[0] - runs[i]![1]);
  const widest = [...gaps].sort((x, y) => y - x)[MAX_ID_RANGES - 2]!;
  const joined: [number, number][] = [runs[0]!];
  runs.slice(1).forEach((run, i) => {
    const last = joined.at(-1)!;
    if (gaps[i]! < widest || joined.length >= MAX_ID_RANGES) last[1] = run[1];
    else joined.push(run);
  });
  return joined;
}

const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * The index query for a text: its rarest trigrams, ANDed, and the rarest one's share of the
 * rows in `sample` (id ranges where the page starts). Every trigram of the text would say more,
 * but FTS5 reads each one's list of rows, and in JSON many trigrams (`"ev`, `uid`, `":"`) are in
 * every row; a few rare ones find almost the same rows for a fraction of the work, and LIKE on
 * each row removes the rest.
 */
function sampleTrigrams(
  prepare: Prepare,
  text: string,
  sample: [number, number][],
): { match: string; rarestShare: number } {
  const chars = [...text];
  const byFold = new Map<string, string>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const trigram = chars.slice(i, i + 3).join('');
    if (!byFold.has(trigram.toLowerCase())) byFold.set(trigram.toLowerCase(), trigram);
  }
  const all = [...byFold.values()];
  const step = Math.max(1, all.length / MAX_SAMPLED_TRIGRAMS);
  const sampled = all.filter((_, i) => Math.floor(i / step) !== Math.floor((i - 1) / step));
  const ids = sample.map(([first, last]) => blockIds(first, last));
  const rowsIn = prepare('SELECT count(*) AS n FROM audit_events WHERE id >= ? AND id <= ?');
  const size = Math.max(1, sum(ids.map(([lo, hi]) => (rowsIn.get(lo, hi) as { n: number }).n)));
  // Counting stops at the share where a trigram is common anyway.
  const cap = Math.ceil(size * COMMON);
  const count = prepare(
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${TEXT_INDEX}
      WHERE ${TEXT_INDEX} MATCH ? AND rowid >= ? AND rowid <= ? LIMIT ?)`,
  );
  const rowsWith = (trigram: string) =>
    sum(ids.map(([lo, hi]) => (count.get(phrase(trigram), lo, hi, cap) as { n: number }).n));
  const counted = sampled
    .map((trigram) => ({ trigram, rows: rowsWith(trigram) }))
    .sort((x, y) => x.rows - y.rows);
  return {
    match: counted
      .filter((c, i) => i === 0 || c.rows < cap)
      .slice(0, 3)
      .map((c) => phrase(c.trigram))
      .join(' AND '),
    rarestShare: counted[0]!.rows / size,
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The ids of blocks `first` to `last`, as integers: FTS5 seeks to a rowid bound only then. */
function blockIds(first: number, last: number): [bigint, bigint] {
  const shift = BigInt(TIME_BLOCK_SHIFT);
  return [BigInt(first) << shift, ((BigInt(last) + 1n) << shift) - 1n];
}
