import { bucketOf } from './audit-text-trigrams.js';

/**
 * The layout of the text index (audit-text.sqlite.ts), kept in the file so that every process
 * reads it alike; powers of two, as shifts of an id.
 *
 * - A column is a run of 2^columnShift ids: the index says which columns may hold a text, and
 *   LIKE reads their rows. Smaller is more precise (a text in 5,000 rows costs about 5,000
 *   columns' rows) and bigger (more distinct trigrams per column).
 * - A segment is a run of 2^segmentShift ids, written at once when it is complete: per bucket
 *   of trigrams, one bit per column.
 * - A time block is a run of 2^timeShift ids with its time span, which orders a search's reads.
 */
export interface IndexShape {
  segmentShift: number;
  columnShift: number;
  timeShift: number;
  bucketBits: number;
}

/**
 * Columns of 4 ids, segments of 16,384 (4 MiB of bits in memory), time blocks of 4,096, 8,192
 * buckets. Measured on the bench's log (bench/audit-search.mjs): a text in 1 event of 200 has
 * one candidate column per match at 8,192 buckets, but twice as many at 4,096 or 2,048 (some
 * of its trigrams then share a bucket with ones every event has); columns of 16 read 4 times
 * the rows of columns of 4 for such a text, which is what a page of 5,000 of them costs.
 */
export const DEFAULT_SHAPE: IndexShape = {
  segmentShift: 14,
  columnShift: 2,
  timeShift: 12,
  bucketBits: 13,
};

/** Whether a shape read from a file is one this code can use. */
export function isUsableShape(shape: IndexShape): boolean {
  const { segmentShift, columnShift, timeShift, bucketBits } = shape;
  const ints = [segmentShift, columnShift, timeShift, bucketBits].every(Number.isSafeInteger);
  return (
    ints &&
    columnShift >= 0 &&
    timeShift >= columnShift + 5 && // a time block is whole words of a slice
    segmentShift >= timeShift &&
    segmentShift - columnShift <= 16 && // a column's place in a segment fits in 16 bits
    segmentShift <= 24 &&
    bucketBits >= 4 &&
    bucketBits <= 16
  );
}

/**
 * One segment's bits: for each bucket, a slice of one bit per column. In memory they are kept
 * word by word, all buckets of a word (32 columns) side by side: a row sets bits in 32 KiB, not
 * across the whole 4 MiB (bucket by bucket, nearly every bit set missed the CPU's caches, a
 * third of what an indexed write cost). A bucket's slice is gathered when asked for.
 */
export class SegmentBits {
  /** 32-bit words per slice. */
  readonly sliceWords: number;
  private readonly buckets: number;
  private readonly words: Uint32Array;
  /** The time span of each time block of the segment: min at 2i, max at 2i + 1. */
  private readonly spans: Float64Array;

  constructor(
    readonly shape: IndexShape,
    readonly segment: number,
  ) {
    this.sliceWords = 2 ** (shape.segmentShift - shape.columnShift - 5);
    this.buckets = 2 ** shape.bucketBits;
    this.words = new Uint32Array(this.sliceWords * this.buckets);
    const blocks = 2 ** (shape.segmentShift - shape.timeShift);
    this.spans = new Float64Array(2 * blocks);
    for (let i = 0; i < blocks; i++) {
      this.spans[2 * i] = Infinity;
      this.spans[2 * i + 1] = -Infinity;
    }
  }

  /** Adds one row: its trigrams' buckets get its column's bit, its block its time. */
  add(id: number, timeMs: number, json: string): void {
    const { segmentShift, columnShift, timeShift, bucketBits } = this.shape;
    const offset = id - this.segment * 2 ** segmentShift;
    const column = offset >>> columnShift;
    const block = offset >>> timeShift;
    this.spans[2 * block] = Math.min(this.spans[2 * block]!, timeMs);
    this.spans[2 * block + 1] = Math.max(this.spans[2 * block + 1]!, timeMs);
    // Inlined forEachBucket: this loop is most of what an indexed write costs.
    const words = this.words;
    const base = (column >>> 5) * this.buckets;
    const bit = 1 << (column & 31);
    const shift = 32 - bucketBits;
    let a = 0;
    let b = 0;
    for (let i = 0; i < json.length; i++) {
      let c = json.charCodeAt(i);
      if (c >= 65 && c <= 90) c |= 32;
      if (i >= 2) {
        const at = base + (bucketOf(a, b, c) >>> shift);
        words[at] = words[at]! | bit;
      }
      a = b;
      b = c;
    }
  }

  /** A bucket's slice: one bit per column of the segment. */
  slice(bucket: number): Uint32Array {
    const out = new Uint32Array(this.sliceWords);
    for (let i = 0; i < out.length; i++) out[i] = this.words[i * this.buckets + bucket]!;
    return out;
  }

  /** The slices to store: those with a bit set (a missing one reads as all clear). */
  *slices(): Generator<{ bucket: number; bits: Buffer }> {
    const scratch = new Uint32Array(this.sliceWords);
    for (let bucket = 0; bucket < this.buckets; bucket++) {
      let any = 0;
      for (let i = 0; i < scratch.length; i++) {
        const word = this.words[i * this.buckets + bucket]!;
        scratch[i] = word;
        any |= word;
      }
      const bits = any === 0 ? undefined : encodeSlice(scratch);
      if (bits) yield { bucket, bits };
    }
  }

  /** The time blocks that hold rows, numbered as in the whole log. */
  blocks(): { block: number; min_time: number; max_time: number }[] {
    const first = this.segment * 2 ** (this.shape.segmentShift - this.shape.timeShift);
    const out = [];
    for (let i = 0; 2 * i < this.spans.length; i++) {
      const min = this.spans[2 * i]!;
      if (min !== Infinity)
        out.push({ block: first + i, min_time: min, max_time: this.spans[2 * i + 1]! });
    }
    return out;
  }
}

/**
 * A slice as stored: its words (little-endian), or, when that is shorter, the places of its set
 * bits (16 bits each, little-endian): most buckets hold trigrams few columns have, and the list
 * is what keeps the file small. The length tells which; undefined for a slice with no bit set.
 */
export function encodeSlice(words: Uint32Array): Buffer | undefined {
  let count = 0;
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) count += popcount(words[i]!);
  if (count === 0) return undefined;
  if (count * 2 >= words.length * 4) return toLittleEndian(words.slice());
  // Run at every write of a segment, 8,192 times: typed arrays, no per-bit calls.
  const places = new Uint16Array(count);
  let at = 0;
  for (let i = 0; i < words.length; i++) {
    for (let bits = words[i]!; bits !== 0; bits &= bits - 1)
      places[at++] = i * 32 + 31 - Math.clz32(bits & -bits);
  }
  return toLittleEndian(places);
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The array's bytes as stored: little-endian, whatever the machine (the array is its own). */
function toLittleEndian(array: Uint16Array | Uint32Array): Buffer {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (!littleEndian) {
    if (array instanceof Uint16Array) bytes.swap16();
    else bytes.swap32();
  }
  return bytes;
}

export function decodeSlice(blob: Buffer, length: number): Uint32Array {
  const out = new Uint32Array(length);
  if (blob.length === length * 4) {
    for (let i = 0; i < length; i++) out[i] = blob.readUInt32LE(i * 4);
    return out;
  }
  for (let at = 0; at + 2 <= blob.length; at += 2) {
    const place = blob.readUInt16LE(at);
    if (place < length * 32) out[place >>> 5] = out[place >>> 5]! | (1 << (place & 31));
  }
  return out;
}

export function popcount(word: number): number {
  let n = word >>> 0;
  n = n - ((n >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
