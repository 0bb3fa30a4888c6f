import { once } from 'node:events';
import { constants, createGzip, type Gzip } from 'node:zlib';
import type { RecordingIndex, RecordingWriter } from './recording-store.js';

export interface CastHeader {
  width: number;
  height: number;
  /** Epoch ms of the session start. */
  start: number;
  term: string;
  title: string;
}

export interface SessionRecorderOptions {
  now: () => number;
  /** Called once, on the first write or open failure; recording has stopped then. */
  onFailure: (reason: string) => void;
  /** The longest output is held before it is compressed. */
  flushDelayMs?: number;
  /** Held output beyond this is compressed at once. */
  flushBytes?: number;
  /** How often the gzip stream is sync-flushed, so a crash loses at most this much. */
  syncEveryMs?: number;
}

/** Compressed output not yet on disk beyond which the session should pause its channel. */
const maxBacklogBytes = 8 * 1024 * 1024;

/**
 * Writes one session as asciicast v2, gzip-compressed, plus its keyframes (docs/recordings.md).
 * The session's hot path only copies output into a list: lines are built, compressed (zlib on
 * libuv's thread pool) and written on a timer or once enough is held, so a flood costs the
 * event loop one JSON.stringify per chunk and no synchronous I/O.
 */
export class SessionRecorder {
  private readonly gzip: Gzip;
  private held: { t: number; kind: 'o' | 'r'; data: Buffer | string }[] = [];
  private heldBytes = 0;
  /** Bytes of the uncompressed cast so far, held lines included. */
  private castBytes = 0;
  private keyframeBytes = 0;
  private readonly keyframes: RecordingIndex['keyframes'] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastSync: number;
  private failed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly writer: RecordingWriter,
    private readonly header: CastHeader,
    private readonly options: SessionRecorderOptions,
  ) {
    // Level 1: terminal output still shrinks about tenfold, at several times level 6's speed.
    this.gzip = createGzip({ level: 1 });
    this.gzip.pipe(writer.cast);
    for (const stream of [this.gzip, writer.cast, writer.keyframes]) {
      stream.on('error', (error: Error) => this.fail(error.message));
    }
    this.lastSync = options.now();
    const line = `${JSON.stringify({
      version: 2,
      width: header.width,
      height: header.height,
      timestamp: Math.floor(header.start / 1000),
      env: { TERM: header.term },
      title: header.title,
    })}\n`;
    this.castBytes = Buffer.byteLength(line);
    this.gzip.write(line);
  }

  get isFailed(): boolean {
    return this.failed;
  }

  /** True while the disk is behind by more than the session should keep in memory. */
  get behind(): boolean {
    return this.gzip.writableLength + this.writer.cast.writableLength > maxBacklogBytes;
  }

  /** Output the session sent its parties; `data` must end on a UTF-8 boundary. */
  output(data: Uint8Array): void {
    if (this.failed || this.closing || data.length === 0) return;
    this.hold({ t: this.elapsed(), kind: 'o', data: Buffer.from(data) }, data.length);
  }

  resize(width: number, height: number): void {
    if (this.failed || this.closing) return;
    this.hold({ t: this.elapsed(), kind: 'r', data: `${width}x${height}` }, 16);
  }

  /**
   * Where the next event starts: a keyframe taken now describes the screen at this offset, so
   * a player draws the keyframe and plays the cast from here.
   */
  position(): { t: number; offset: number } {
    this.flush();
    return { t: this.elapsed(), offset: this.castBytes };
  }

  /** Stores a serialized screen for a position taken earlier. */
  keyframe(at: { t: number; offset: number }, size: { w: number; h: number }, screen: string) {
    if (this.failed || this.closing) return;
    const line = `${JSON.stringify({ ...at, cols: size.w, rows: size.h, screen })}\n`;
    const length = Buffer.byteLength(line);
    this.keyframes.push({ ...at, at: this.keyframeBytes, length });
    this.keyframeBytes += length;
    this.writer.keyframes.write(line);
  }

  /** Writes what is held, completes both files and seals the index. Never rejects. */
  close(participants: string[]): Promise<void> {
    this.closing ??= this.finish(participants).catch((error: Error) => this.fail(error.message));
    return this.closing;
  }

  private async finish(participants: string[]): Promise<void> {
    this.flush();
    if (this.failed) return;
    const durationMs = Math.max(0, this.options.now() - this.header.start);
    this.gzip.end();
    this.writer.keyframes.end();
    await Promise.all([once(this.writer.cast, 'close'), once(this.writer.keyframes, 'close')]);
    if (this.failed) return;
    await this.writer.seal({
      version: 1,
      sid: '',
      sealed: true,
      incomplete: false,
      durationMs,
      participants,
      castBytes: this.castBytes,
      keyframes: this.keyframes,
    });
  }

  private elapsed(): number {
    return Math.max(0, this.options.now() - this.header.start) / 1000;
  }

  private hold(event: (typeof this.held)[number], bytes: number): void {
    this.held.push(event);
    this.heldBytes += bytes;
    if (this.heldBytes >= (this.options.flushBytes ?? 256 * 1024)) return this.flush();
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.options.flushDelayMs ?? 200);
    this.timer.unref();
  }

  /** Turns held events into cast lines and hands them to gzip in one write. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.held.length === 0 || this.failed) return;
    let text = '';
    for (const { t, kind, data } of this.held) {
      const value = typeof data === 'string' ? data : data.toString('utf8');
      text += `${JSON.stringify([Math.round(t * 1e6) / 1e6, kind, value])}\n`;
    }
    this.held = [];
    this.heldBytes = 0;
    const chunk = Buffer.from(text, 'utf8');
    this.castBytes += chunk.length;
    this.gzip.write(chunk);
    const now = this.options.now();
    if (now - this.lastSync >= (this.options.syncEveryMs ?? 2000)) {
      this.lastSync = now;
      // A sync flush makes everything so far decompressible from the file after a crash.
      this.gzip.flush(constants.Z_SYNC_FLUSH);
    }
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    clearTimeout(this.timer);
    this.held = [];
    this.gzip.unpipe();
    for (const stream of [this.gzip, this.writer.cast, this.writer.keyframes]) stream.destroy();
    this.options.onFailure(reason);
  }
}
