import { createGunzip } from 'node:zlib';
import type { CastEvent, RecordingChunk, RecordingInfo } from '@postern/contracts';
import type { RecordingIndex, RecordingStore, SeekPoint } from './recording-store.js';

/**
 * Reads a sealed recording in pieces for the player (docs/recordings.md, "Playback"): a chunk
 * starts at the nearest seek point before the wanted offset, so no read decompresses more than
 * about a MiB it does not return, however long the recording.
 */

/** The longest header line read; a real one is a few hundred bytes. */
const maxHeaderBytes = 64 * 1024;

export async function readRecordingInfo(
  store: RecordingStore,
  index: RecordingIndex,
): Promise<RecordingInfo> {
  const header = await readHeader(store, index.sid);
  return {
    sid: index.sid,
    durationMs: index.durationMs,
    incomplete: index.incomplete,
    cols: positive(header.width, 80),
    rows: positive(header.height, 24),
    title: typeof header.title === 'string' ? header.title : '',
    castBytes: index.castBytes,
    keyframeTimes: index.keyframes.map((k) => k.t),
    marks: index.marks ?? [],
  };
}

/** The chunk a seek to `at` seconds starts with: the last keyframe at or before it, and on. */
export async function readChunkAt(
  store: RecordingStore,
  index: RecordingIndex,
  at: number,
  maxBytes: number,
): Promise<RecordingChunk> {
  const keyframe = index.keyframes.findLast((k) => k.t <= at);
  const screen = keyframe && (await readScreen(store, index.sid, keyframe));
  if (!keyframe || !screen) return readChunkFrom(store, index, 0, maxBytes);
  return { screen, ...(await readChunkFrom(store, index, keyframe.offset, maxBytes)) };
}

/**
 * Whole events from `offset` (a line start a previous chunk gave as `next`) until `maxBytes` of
 * cast lines are read. Lines that are not events (the header) are skipped.
 */
export async function readChunkFrom(
  store: RecordingStore,
  index: RecordingIndex,
  offset: number,
  maxBytes: number,
): Promise<Omit<RecordingChunk, 'screen'>> {
  if (offset >= index.castBytes) return { events: [], next: null };
  const point = seekPointBefore(index, offset);
  const source = await store.openCast(index.sid, point.gz);
  if (!source) return { events: [], next: null };
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  const events: CastEvent[] = [];
  let skip = offset - point.offset;
  let lineStart = offset;
  let bytes = 0;
  let carry = Buffer.alloc(0);
  try {
    for await (const piece of gunzip as AsyncIterable<Buffer>) {
      let chunk = piece;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      chunk = chunk.subarray(skip);
      skip = 0;
      const buffer = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let end = buffer.indexOf(10); end >= 0; end = buffer.indexOf(10, start)) {
        if (bytes >= maxBytes && events.length > 0) return { events, next: lineStart };
        const event = parseEvent(buffer.subarray(start, end));
        if (event) events.push(event);
        bytes += end + 1 - start;
        lineStart += end + 1 - start;
        start = end + 1;
      }
      carry = Buffer.from(buffer.subarray(start));
    }
    return { events, next: null };
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

function seekPointBefore(index: RecordingIndex, offset: number): SeekPoint {
  const points = index.seekPoints ?? [];
  return points.findLast((p) => p.offset <= offset) ?? { t: 0, offset: 0, gz: 0 };
}

function parseEvent(line: Buffer): CastEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length < 3) return undefined;
  const [t, kind, data] = value as unknown[];
  if (typeof t !== 'number' || typeof kind !== 'string' || typeof data !== 'string') return;
  return [Math.max(0, t), kind, data];
}

async function readScreen(
  store: RecordingStore,
  sid: string,
  keyframe: RecordingIndex['keyframes'][number],
): Promise<RecordingChunk['screen']> {
  const line = await store.readKeyframe(sid, keyframe.at, keyframe.length);
  if (!line) return undefined;
  try {
    const { t, cols, rows, screen } = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
    if (typeof screen !== 'string') return undefined;
    return {
      t: Number(t) || keyframe.t,
      cols: positive(cols, 80),
      rows: positive(rows, 24),
      data: screen,
    };
  } catch {
    return undefined;
  }
}

async function readHeader(store: RecordingStore, sid: string): Promise<Record<string, unknown>> {
  const source = await store.openCast(sid);
  if (!source) return {};
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  let text = Buffer.alloc(0);
  try {
    for await (const piece of gunzip as AsyncIterable<Buffer>) {
      text = Buffer.concat([text, piece]);
      const end = text.indexOf(10);
      if (end >= 0)
        return JSON.parse(text.subarray(0, end).toString('utf8')) as Record<string, unknown>;
      if (text.length > maxHeaderBytes) break;
    }
  } catch {
    // A damaged header: the info falls back to a standard terminal size.
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  return {};
}

const positive = (value: unknown, fallback: number) =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 10_000
    ? value
    : fallback;
