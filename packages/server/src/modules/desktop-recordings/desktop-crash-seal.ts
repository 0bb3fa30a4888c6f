import type { BlobStore } from '../../blobs/blob-store.js';
import {
  chainSeed,
  chunkLine,
  nextChain,
  parseChunkList,
} from '../recordings/recording-integrity.js';
import type { CrashSealer } from '../recordings/recording-store.js';
import {
  desktopBlobName,
  writeDesktopIndex,
  type DesktopKeyframe,
} from './desktop-recording-blobs.js';
import {
  desktopEventsMagic,
  encodeRecord,
  parseRecords,
  type PlacedRecord,
} from './record-format.js';

/**
 * Desktop recordings in the platform's crash sealing (`BlobRecordingStore.init`): at start,
 * `<sid>.desktop.events` without `<sid>.desktop.index.json` is sealed.
 */
export const desktopRecordingSealer: CrashSealer = {
  firstPart: 'desktop.events',
  sealPart: 'desktop.index.json',
  seal: sealDesktopAfterCrash,
};

/**
 * Seals a desktop recording a crash left open: keeps its whole records (a write cut short is
 * dropped), ends it with an `end` event at the last event's time, and marks it incomplete. The
 * chunks are those of the chunk list that the kept bytes hold whole, then one for the rest; the
 * chain is computed again over them, so the seal vouches for what was recovered. Its header says
 * who took part, so the same users may read it as if it had ended well.
 */
export async function sealDesktopAfterCrash(blobs: BlobStore, sid: string): Promise<void> {
  const data = (await blobs.get(desktopBlobName(sid, 'desktop.events'))) ?? Buffer.alloc(0);
  const { records, end } = parseRecords(data);
  const kept = end > 0 ? data.subarray(0, end) : desktopEventsMagic;
  const list = await blobs.get(desktopBlobName(sid, 'desktop.chunks.jsonl')).catch(() => undefined);
  const starts = chunkStarts(list, records, kept.length);
  const lastMs = records.reduce((ms, placed) => Math.max(ms, placed.record.ms), 0);
  const endRecord = encodeRecord({ type: 'end', ms: lastMs });
  const events = Buffer.concat([kept, endRecord]);
  starts.push(kept.length);

  let chain = chainSeed(sid);
  let lines = '';
  starts.forEach((at, i) => {
    const next = starts[i + 1] ?? events.length;
    chain = nextChain(chain, events.subarray(at, next));
    const first = records.find((placed) => placed.at >= at)?.record.ms ?? lastMs;
    lines += chunkLine({ i, gz: at, length: next - at, offset: at, t: first / 1000, chain });
  });
  await blobs.put(desktopBlobName(sid, 'desktop.events'), events);
  await blobs.put(desktopBlobName(sid, 'desktop.chunks.jsonl'), lines);

  const header = records.find((placed) => placed.record.type === 'header')?.record;
  const firstScreen = records.find((placed) => placed.record.type === 'screen')?.record;
  await writeDesktopIndex(blobs, {
    version: 1,
    format: 'postern-desktop',
    sid,
    sealed: true,
    incomplete: true,
    durationMs: lastMs,
    participants: header?.type === 'header' ? header.header.participants : [],
    desktopName: header?.type === 'header' ? header.header.desktopName : '',
    width: firstScreen?.type === 'screen' ? firstScreen.width : 0,
    height: firstScreen?.type === 'screen' ? firstScreen.height : 0,
    size: events.length,
    keyframes: keyframesOf(records, starts),
    integrity: { algorithm: 'sha256-chain', chunks: starts.length, head: chain },
  });
}

/**
 * Where the recovered chunks start: those of the list, in order from 0, that end on a record's
 * end within the kept bytes; then one for the whole records after them, if any.
 */
function chunkStarts(list: Buffer | undefined, records: PlacedRecord[], keptBytes: number) {
  const boundaries = new Set([desktopEventsMagic.length, ...records.map((placed) => placed.end)]);
  const starts: number[] = [];
  let position = 0;
  for (const chunk of parseChunkList(list ?? Buffer.alloc(0))) {
    const chunkEnd = chunk.gz + chunk.length;
    if (chunk.i !== starts.length || chunk.gz !== position || !boundaries.has(chunkEnd)) break;
    if (chunkEnd > keptBytes) break;
    starts.push(chunk.gz);
    position = chunkEnd;
  }
  if (position < keptBytes) starts.push(position);
  return starts;
}

/** The keyframes: a chunk holding a keyframe rectangle, at the screen size then in force. */
function keyframesOf(records: PlacedRecord[], starts: number[]): DesktopKeyframe[] {
  const keyframes: DesktopKeyframe[] = [];
  let size = { width: 0, height: 0 };
  for (const { record, at } of records) {
    if (record.type === 'screen') size = { width: record.width, height: record.height };
    if (record.type !== 'rect' || !record.keyframe) continue;
    const start = starts.findLast((s) => s <= at) ?? 0;
    if (keyframes.at(-1)?.at !== start) keyframes.push({ ms: record.ms, at: start, ...size });
  }
  return keyframes;
}
