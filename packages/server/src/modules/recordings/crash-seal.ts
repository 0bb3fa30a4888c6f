import type { BlobStore } from '../../blobs/blob-store.js';
import { chainSeed, chunkLine, nextChain, sha256Hex } from './recording-integrity.js';
import { recordingBlobName, writeIndex } from './recording-blobs.js';
import type { RecordingIndex, SeekPoint } from './recording-store.js';
import { sealCast } from './seal.js';

/**
 * Seals a recording a crash left without an index: keeps the readable part of the cast and the
 * keyframes it covers, and marks it incomplete. The cast is rewritten, so its chunk list is too:
 * the seal vouches for what was recovered.
 */
export async function sealAfterCrash(blobs: BlobStore, sid: string): Promise<void> {
  const text =
    (await blobs.get(recordingBlobName(sid, 'keyframes.jsonl')).catch(() => undefined)) ??
    Buffer.alloc(0);
  const candidates = readKeyframeLines(text).map((k) => ({
    ...k,
    sha256: sha256Hex(text.subarray(k.at, k.at + k.length)),
  }));
  const castName = recordingBlobName(sid, 'cast.gz');
  const sealed = sealCast(
    (await blobs.get(castName)) ?? Buffer.alloc(0),
    candidates.map((k) => k.offset),
  );
  await blobs.put(castName, sealed.gzip);
  const chunks = await writeChunkList(blobs, sid, sealed.gzip, sealed.seekPoints);
  await writeIndex(blobs, {
    version: 1,
    sid,
    sealed: true,
    incomplete: true,
    durationMs: Math.round(sealed.lastTime * 1000),
    participants: [],
    castBytes: sealed.castBytes,
    keyframes: candidates.filter((k) => k.offset <= sealed.castBytes),
    seekPoints: sealed.seekPoints,
    marks: sealed.marks,
    integrity: {
      algorithm: 'sha256-chain',
      chunks: chunks.count,
      head: chunks.head,
      keyframes: sha256Hex(text),
    },
  });
}

/** The chunk list of a cast sealed after a crash: its members start at the seek points. */
async function writeChunkList(
  blobs: BlobStore,
  sid: string,
  gzip: Buffer,
  seekPoints: SeekPoint[],
): Promise<{ count: number; head: string }> {
  const points = seekPoints.length > 0 ? seekPoints : [{ t: 0, offset: 0, gz: 0 }];
  let chain = chainSeed(sid);
  let lines = '';
  points.forEach((point, i) => {
    const end = points[i + 1]?.gz ?? gzip.length;
    chain = nextChain(chain, gzip.subarray(point.gz, end));
    const { gz, offset, t } = point;
    lines += chunkLine({ i, gz, length: end - gz, offset, t, chain });
  });
  await blobs.put(recordingBlobName(sid, 'chunks.jsonl'), lines);
  return { count: points.length, head: chain };
}

/** The whole, parseable keyframe lines of a file a crash may have cut, with their positions. */
function readKeyframeLines(text: Buffer): RecordingIndex['keyframes'] {
  const keyframes: RecordingIndex['keyframes'] = [];
  let at = 0;
  for (let end = text.indexOf(10); end >= 0; end = text.indexOf(10, at)) {
    try {
      const { t, offset } = JSON.parse(text.subarray(at, end).toString('utf8')) as {
        t: number;
        offset: number;
      };
      keyframes.push({ t, offset, at, length: end - at + 1 });
    } catch {
      break;
    }
    at = end + 1;
  }
  return keyframes;
}
