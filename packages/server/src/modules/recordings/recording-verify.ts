import {
  chainSeed,
  exactReader,
  parseChunkList,
  sha256Hex,
  walkChunks,
} from './recording-integrity.js';
import type { RecordingStore } from './recording-store.js';

/** What `postern verify recordings` says about one sealed recording. */
export type RecordingVerdict =
  | { sid: string; status: 'ok'; chunks: number; keyframes: number }
  /** Sealed before recordings carried chunk hashes: nothing to check against. */
  | { sid: string; status: 'unchained' }
  | {
      sid: string;
      status: 'damaged';
      /** The first bad chunk (a gzip member of the cast) and where it starts in `<sid>.cast.gz`. */
      chunk?: number;
      offset?: number;
      /** Which file: the cast, its chunk list or the keyframes. */
      file: string;
      reason: string;
    };

/** Checks a sealed recording's cast, chunk list and keyframes against its seal. */
export async function verifyRecording(
  store: RecordingStore,
  sid: string,
): Promise<RecordingVerdict | undefined> {
  const index = await store.readIndex(sid).catch(() => undefined);
  if (!index) return undefined;
  const seal = index.integrity;
  if (!seal) return { sid, status: 'unchained' };
  const damaged = (file: string, reason: string, chunk?: number, offset?: number) =>
    ({ sid, status: 'damaged', file, reason, chunk, offset }) as const;
  const list = await store.readChunkList(sid);
  if (!list) return damaged(`${sid}.chunks.jsonl`, 'the chunk list is missing');
  const records = parseChunkList(list);
  const cast = await store.openCast(sid);
  if (!cast) return damaged(`${sid}.cast.gz`, 'the cast is missing');
  try {
    const read = exactReader(cast);
    const bad = await walkChunks(sid, records, 0, read, () => undefined);
    if (bad) return damaged(`${sid}.cast.gz`, bad.reason, bad.index, bad.record?.gz);
    const end = records.reduce((sum, r) => sum + r.length, 0);
    if (records.length < seal.chunks)
      return damaged(
        `${sid}.cast.gz`,
        'the chunks from here on are missing from the chunk list or the cast',
        records.length,
        end,
      );
    if ((records.at(-1)?.chain ?? chainSeed(sid)) !== seal.head || records.length > seal.chunks)
      return damaged(`${sid}.chunks.jsonl`, 'the chunk chain does not end at the sealed head');
    if ((await read(1)).length > 0)
      return damaged(
        `${sid}.cast.gz`,
        'bytes were added after the last chunk',
        records.length,
        end,
      );
  } finally {
    cast.destroy();
  }
  const keyframes = await readAll(await store.openKeyframes(sid));
  if (sha256Hex(keyframes) !== seal.keyframes) {
    const k = index.keyframes.findIndex(
      (entry) => sha256Hex(keyframes.subarray(entry.at, entry.at + entry.length)) !== entry.sha256,
    );
    return k >= 0
      ? damaged(
          `${sid}.keyframes.jsonl`,
          `keyframe ${k} was altered`,
          undefined,
          index.keyframes[k]?.at,
        )
      : damaged(`${sid}.keyframes.jsonl`, 'the keyframes file was altered');
  }
  return { sid, status: 'ok', chunks: records.length, keyframes: index.keyframes.length };
}

async function readAll(source: AsyncIterable<Buffer> | undefined): Promise<Buffer> {
  const pieces: Buffer[] = [];
  if (source) for await (const piece of source) pieces.push(piece);
  return Buffer.concat(pieces);
}
