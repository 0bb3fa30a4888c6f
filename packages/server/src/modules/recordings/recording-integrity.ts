import { createHash } from 'node:crypto';

/**
 * Tamper evidence for recordings (docs/recordings.md, "Integrity"). Every gzip member of
 * `<sid>.cast.gz` is a chunk; `<sid>.chunks.jsonl` lists them as written, each with the chain
 * value `chain_i = SHA-256(chain_{i-1} || member bytes)` (hex), so a changed, removed or
 * reordered chunk breaks the chain from there on. The seal (the index) holds the count and the
 * last chain value, and the SHA-256 of the keyframes file; each keyframe entry holds its line's.
 */

/** What the seal holds. Indexes sealed before chunk hashes existed lack it. */
export interface RecordingIntegrity {
  algorithm: 'sha256-chain';
  chunks: number;
  /** The chain value after the last chunk (the seed when there is none). */
  head: string;
  /** SHA-256 of the whole `<sid>.keyframes.jsonl`. */
  keyframes: string;
}

/** One line of `<sid>.chunks.jsonl`. */
export interface ChunkRecord {
  i: number;
  /** Where the member starts in `<sid>.cast.gz`, and its length there. */
  gz: number;
  length: number;
  /** Where its text starts in the uncompressed cast, and the time of its first event. */
  offset: number;
  t: number;
  chain: string;
}

export const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The chain's start binds it to the session id, so chunks cannot move between recordings. */
export const chainSeed = (sid: string) => sha256Hex(`postern recording ${sid}`);

export const nextChain = (previous: string, member: Buffer) =>
  createHash('sha256').update(previous).update(member).digest('hex');

export const chunkLine = (record: ChunkRecord) => `${JSON.stringify(record)}\n`;

/** The chunk list's lines; a line that is not a chunk record ends the list where it stands. */
export function parseChunkList(text: Buffer): ChunkRecord[] {
  const records: ChunkRecord[] = [];
  for (const line of text.toString('utf8').split('\n')) {
    if (line === '') continue;
    try {
      const value = JSON.parse(line) as Partial<ChunkRecord>;
      const numbers = [value.i, value.gz, value.length, value.offset, value.t];
      if (!numbers.every((n) => typeof n === 'number') || typeof value.chain !== 'string') break;
      records.push(value as ChunkRecord);
    } catch {
      break;
    }
  }
  return records;
}

/**
 * Checks the chunks in order against a reader of the cast file, calling `onChunk` with each
 * good member. Stops at the first chunk whose bytes, position or place in the chain is wrong
 * and returns it with the reason; undefined when all `records` are good.
 */
export async function walkChunks(
  sid: string,
  records: ChunkRecord[],
  from: number,
  read: (length: number) => Promise<Buffer>,
  onChunk: (record: ChunkRecord, member: Buffer) => boolean | void,
): Promise<{ record: ChunkRecord | undefined; index: number; reason: string } | undefined> {
  let chain = from === 0 ? chainSeed(sid) : (records[from - 1]?.chain ?? '');
  let position = records[from]?.gz ?? 0;
  for (let i = from; i < records.length; i += 1) {
    const record = records[i]!;
    if (record.i !== i || record.gz !== position)
      return { record, index: i, reason: 'the chunk list was altered here' };
    const member = await read(record.length);
    if (member.length < record.length)
      return { record, index: i, reason: 'the cast file ends inside this chunk' };
    const expected = nextChain(chain, member);
    if (expected !== record.chain)
      return { record, index: i, reason: 'its bytes were altered, or a chunk before it removed' };
    chain = expected;
    position += record.length;
    if (onChunk(record, member) === false) return undefined;
  }
  return undefined;
}

/** Reads a stream in pieces of exactly the asked length (shorter only at its end). */
export function exactReader(source: AsyncIterable<Buffer>): (length: number) => Promise<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Buffer = Buffer.alloc(0);
  let ended = false;
  return async (length) => {
    while (pending.length < length && !ended) {
      const next = await iterator.next();
      if (next.done) ended = true;
      else pending = pending.length ? Buffer.concat([pending, next.value]) : next.value;
    }
    const piece = pending.subarray(0, length);
    pending = pending.subarray(piece.length);
    return piece;
  };
}
