import type Database from 'better-sqlite3';
import type { SegmentBits } from './audit-text-segment.js';
import { popcount } from './audit-text-segment.js';
import type { SqliteTextIndex } from './audit-text.sqlite.js';
import { TIME_BLOCKS } from './audit-text.sqlite.js';
import { textBuckets } from './audit-text-trigrams.js';

/**
 * What one search reads of the text index (audit-text.sqlite.ts): the time blocks of its span,
 * and the columns of some blocks whose bits hold all of its text's buckets. Written segments come
 * from the file (only the slices of the text's buckets), open ones from the store's memory.
 */

export interface TimeBlock {
  block: number;
  min_time: number;
  max_time: number;
}

/** The text's buckets ANDed at most: more would read more slices for few fewer columns. */
const MAX_BUCKETS = 16;

export class TextIndexReader {
  private readonly open: Map<number, SegmentBits>;
  private readonly sealedBelow: number;
  /** Per segment, the slices of the buckets read so far. */
  private readonly slices = new Map<number, Map<number, Uint32Array>>();
  /** All of the text's buckets, and those ANDed once the sample has chosen. */
  private readonly allBuckets: number[];
  private chosen: number[];
  private readonly blockShift: number;
  private readonly blockWords: number;

  /** In the search's read transaction: catches the open segments up to it first. */
  constructor(
    private readonly index: SqliteTextIndex,
    text: string,
  ) {
    const open = index.catchUp();
    this.open = open.segments;
    this.sealedBelow = open.sealedBelow;
    const { segmentShift, columnShift, timeShift, bucketBits } = index.shape;
    this.allBuckets = textBuckets(text, bucketBits);
    this.chosen = this.allBuckets.slice(0, MAX_BUCKETS);
    this.blockShift = segmentShift - timeShift;
    this.blockWords = 2 ** (timeShift - columnShift - 5);
  }

  /** The time blocks that may hold rows of [from, to], written ones and open ones. */
  blocks(prepare: (sql: string) => Database.Statement, from: number, to: number): TimeBlock[] {
    const firstOpen = this.sealedBelow * 2 ** this.blockShift;
    const sealed = prepare(
      `SELECT block, min_time, max_time FROM ${TIME_BLOCKS}
        WHERE max_time >= ? AND min_time <= ? AND block < ?`,
    ).all(from, to, firstOpen) as TimeBlock[];
    const open = [...this.open.values()].flatMap((segment) =>
      segment.blocks().filter((b) => b.max_time >= from && b.min_time <= to),
    );
    return [...sealed, ...open];
  }

  /**
   * Chooses the buckets to AND: the rarest in `sample` (the blocks where the page starts).
   * Returns the share of the sample's columns that may hold the text, out of `columns` (about
   * how many columns hold rows there).
   */
  choose(sample: number[], columns: number): number {
    // Every bucket of the text is counted: read them all at once.
    for (const block of sample)
      this.slicesOf(Math.floor(block / 2 ** this.blockShift), this.allBuckets);
    const counts = this.allBuckets.map((bucket) => {
      let count = 0;
      for (const block of sample) this.words(block, [bucket], (word) => (count += popcount(word)));
      return { bucket, count };
    });
    counts.sort((x, y) => x.count - y.count);
    this.chosen = counts.slice(0, MAX_BUCKETS).map((c) => c.bucket);
    let candidates = 0;
    for (const block of sample)
      this.words(block, this.chosen, (word) => (candidates += popcount(word)));
    return candidates / Math.max(1, columns);
  }

  /** The first id of each column of these blocks that may hold the text, ascending per block. */
  candidates(blocks: number[]): number[] {
    const { columnShift } = this.index.shape;
    const out: number[] = [];
    for (const block of blocks) {
      const firstColumn = block * this.blockWords * 32;
      this.words(block, this.chosen, (word, i) => {
        while (word !== 0) {
          const low = word & -word;
          out.push((firstColumn + i * 32 + 31 - Math.clz32(low)) * 2 ** columnShift);
          word ^= low;
        }
      });
    }
    return out;
  }

  /** Calls `visit` with each word of a block's columns, the given buckets' slices ANDed. */
  private words(block: number, buckets: number[], visit: (word: number, i: number) => void) {
    const segment = Math.floor(block / 2 ** this.blockShift);
    const start = (block % 2 ** this.blockShift) * this.blockWords;
    const slices = this.slicesOf(segment, buckets);
    for (let i = 0; i < this.blockWords; i++) {
      let word = -1;
      for (const slice of slices) word &= slice[start + i]!;
      visit(word >>> 0, i);
    }
  }

  /** A segment's slices of some buckets, each got once per search: from memory when open. */
  private slicesOf(segment: number, buckets: number[]): Uint32Array[] {
    let read = this.slices.get(segment);
    if (!read) this.slices.set(segment, (read = new Map()));
    const missing = buckets.filter((bucket) => !read.has(bucket));
    const open = this.open.get(segment);
    if (open) for (const bucket of missing) read.set(bucket, open.slice(bucket));
    else if (missing.length > 0)
      for (const [bucket, slice] of this.index.sealedSlices(segment, missing))
        read.set(bucket, slice);
    return buckets.map((bucket) => read.get(bucket)!);
  }
}
