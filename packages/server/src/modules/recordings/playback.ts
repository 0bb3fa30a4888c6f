import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import type { CastEvent, RecordingChunk, RecordingInfo } from '@postern/contracts';
import { exactReader, parseChunkList, sha256Hex, walkChunks } from './recording-integrity.js';
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
 * cast lines are read. Lines that are not events (the header) are skipped. A damaged recording
 * (a chunk whose hash does not match, or a cast that does not decompress) ends at the damage:
 * the events before it, `next: null` and `damaged`, never an error.
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
  const text = index.integrity
    ? await verifiedText(store, index, point, source)
    : unverifiedText(source);
  const events: CastEvent[] = [];
  let skip = offset - point.offset;
  let lineStart = offset;
  let bytes = 0;
  let carry = Buffer.alloc(0);
  try {
    for await (const piece of text.pieces) {
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
    const damage = text.damage();
    if (!damage) return { events, next: null };
    const t = events.at(-1)?.[0] ?? damage.t ?? point.t;
    return { events, next: null, damaged: { ...damage, t: Math.max(0, t) } };
  } finally {
    source.destroy();
    text.close();
  }
}

type Damage = NonNullable<RecordingChunk['damaged']>;

/** The cast's text from a seek point, as pieces, and what stopped it early (if anything). */
interface CastText {
  pieces: AsyncIterable<Buffer>;
  damage(): (Omit<Damage, 't'> & { t?: number }) | undefined;
  close(): void;
}

/** A recording sealed with chunk hashes: each member is checked before its text is used. */
async function verifiedText(
  store: RecordingStore,
  index: RecordingIndex,
  point: SeekPoint,
  source: Readable,
): Promise<CastText> {
  const records = parseChunkList((await store.readChunkList(index.sid)) ?? Buffer.alloc(0));
  const from = records.findIndex((record) => record.gz === point.gz);
  let damage: ReturnType<CastText['damage']>;
  const missing = (chunk: number, t?: number) => ({ chunk, t, message: damagedMessage });
  async function* pieces(): AsyncGenerator<Buffer> {
    if (from < 0) {
      damage = missing(records.length);
      return;
    }
    const good: Buffer[] = [];
    const read = exactReader(source);
    for (let at = from; at < records.length;) {
      // Checks a few chunks at a time, so a long read does not hash what it will not send.
      const bad = await walkChunks(index.sid, records.slice(0, at + 16), at, read, (_, member) => {
        good.push(member);
      });
      for (const member of good.splice(0)) {
        try {
          yield gunzipSync(member);
        } catch {
          damage = missing(at);
          return;
        }
      }
      if (bad) {
        damage = missing(bad.index, bad.record?.t);
        return;
      }
      at += 16;
    }
    if (records.length < (index.integrity?.chunks ?? 0)) damage = missing(records.length);
  }
  return { pieces: pieces(), damage: () => damage, close: () => undefined };
}

/**
 * A recording sealed before chunk hashes: a cast that does not decompress is damage too. Data
 * events are queued by hand because a stream's async iterator drops what it buffered when the
 * stream fails, and that is exactly the part before the damage.
 */
function unverifiedText(source: Readable): CastText {
  const gunzip = createGunzip();
  const queue: Buffer[] = [];
  let failed = false;
  let done = false;
  let wake: (() => void) | undefined;
  const signal = () => wake?.();
  gunzip.on('data', (piece: Buffer) => {
    queue.push(piece);
    if (queue.length >= 16) gunzip.pause();
    signal();
  });
  gunzip.on('end', () => ((done = true), signal()));
  gunzip.on('error', () => ((failed = done = true), signal()));
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  async function* pieces(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = queue.shift();
      if (next) {
        if (queue.length < 4) gunzip.resume();
        yield next;
      } else if (done) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    pieces: pieces(),
    damage: () => (failed ? { message: damagedMessage } : undefined),
    close: () => gunzip.destroy(),
  };
}

const damagedMessage = 'the recording is damaged here: what follows was altered or is missing';

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
  // An altered keyframe is not drawn: the seek then plays from the start instead.
  if (keyframe.sha256 !== undefined && sha256Hex(line) !== keyframe.sha256) return undefined;
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
