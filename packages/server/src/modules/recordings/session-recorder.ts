import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { RecordingMark } from '@postern/contracts';
import { chainSeed, chunkLine, nextChain, sha256Hex } from './recording-integrity.js';
import type { RecordingIndex, RecordingWriter, SeekPoint } from './recording-store.js';

const gzipAsync = promisify(gzip);

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
  /** The backlog emptied: a session paused because of `behind` may resume. */
  onDrain?: () => void;
}

/** Output handed to compression and not yet written beyond which the session should pause. */
const maxBacklogBytes = 8 * 1024 * 1024;

/** A reader starting at the nearest seek point decompresses at most about this much to skip. */
const seekPointEveryBytes = 1024 * 1024;

/**
 * Writes one session as asciicast v2, gzip-compressed, plus its keyframes (docs/recordings.md).
 * The session's hot path only copies output into a list. On a timer, or once enough is held, the
 * held events become cast lines that are compressed as one gzip member on libuv's thread pool
 * (gunzip reads concatenated members as one file); members are written in order. A member is
 * complete on disk once written, so a crash loses only what was held or being compressed.
 */
export class SessionRecorder {
  private held: { t: number; kind: 'o' | 'r' | 'm'; data: Buffer | string }[] = [];
  /** Joins and resizes, for the index (the player's timeline markers). */
  private readonly marks: RecordingMark[] = [];
  private heldBytes = 0;
  /** Bytes of the uncompressed cast so far, held lines included. */
  private castBytes = 0;
  private keyframeBytes = 0;
  private readonly keyframes: RecordingIndex['keyframes'] = [];
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  private closing: Promise<void> | undefined;
  /** Members being compressed or written, in cast order. */
  private written: Promise<void> = Promise.resolve();
  private backlog = 0;
  /** Output stopped compressing: members are stored, and every 16th probes level 1 again. */
  private storing = false;
  private members = 0;
  /** Bytes of `<sid>.cast.gz` written, in member order. */
  private gzBytes = 0;
  private readonly seekPoints: SeekPoint[] = [];
  private lastSeekOffset = -Infinity;
  /** A keyframe was taken: the next member must start a seek point at its offset. */
  private seekPointWanted = false;
  /** The chunk hash chain over the members written so far (recording-integrity.ts). */
  private chain: string;
  private chunks = 0;
  private readonly keyframesHash = createHash('sha256');

  constructor(
    private readonly writer: RecordingWriter,
    private readonly header: CastHeader,
    private readonly options: SessionRecorderOptions,
  ) {
    this.chain = chainSeed(writer.sid);
    for (const stream of [writer.cast, writer.keyframes, writer.chunks]) {
      stream.on('error', (error: Error) => this.fail(error.message));
    }
    this.write(
      Buffer.from(
        `${JSON.stringify({
          version: 2,
          width: header.width,
          height: header.height,
          timestamp: Math.floor(header.start / 1000),
          env: { TERM: header.term },
          title: header.title,
        })}\n`,
      ),
      0,
    );
  }

  /** True while compression or the disk is behind by more than a session should hold. */
  get behind(): boolean {
    // A failed recording holds nothing back: a session failing open must not stay paused.
    if (this.failed) return false;
    return this.backlog + this.writer.cast.writableLength > maxBacklogBytes;
  }

  /** Output the session sent its parties; `data` must end on a UTF-8 boundary. */
  output(data: Uint8Array): void {
    if (this.failed || this.closing || data.length === 0) return;
    this.hold({ t: this.elapsed(), kind: 'o', data: Buffer.from(data) }, data.length);
  }

  resize(width: number, height: number): void {
    if (this.failed || this.closing) return;
    const t = this.elapsed();
    const size = `${width}x${height}`;
    this.hold({ t, kind: 'r', data: size }, 16);
    this.marks.push({ t, kind: 'resize', label: size });
  }

  /** Someone joined: an asciicast marker (`m`) in the cast, and a mark in the index. */
  join(user: string, mode: string): void {
    if (this.failed || this.closing) return;
    const t = this.elapsed();
    const label = `${user} joined (${mode})`;
    this.hold({ t, kind: 'm', data: label }, label.length);
    this.marks.push({ t, kind: 'join', label });
  }

  /**
   * Where the next event starts: a keyframe taken now describes the screen at this offset, so
   * a player draws the keyframe and plays the cast from here.
   */
  position(): { t: number; offset: number } {
    this.flush();
    this.seekPointWanted = true;
    return { t: this.elapsed(), offset: this.castBytes };
  }

  /** Stores a serialized screen for a position taken earlier. */
  keyframe(at: { t: number; offset: number }, size: { w: number; h: number }, screen: string) {
    if (this.failed || this.closing) return;
    const line = `${JSON.stringify({ ...at, cols: size.w, rows: size.h, screen })}\n`;
    const length = Buffer.byteLength(line);
    this.keyframes.push({ ...at, at: this.keyframeBytes, length, sha256: sha256Hex(line) });
    this.keyframeBytes += length;
    this.keyframesHash.update(line);
    this.writer.keyframes.write(line);
  }

  /**
   * Writes what is held, completes both files and seals the index. Never rejects. `endedAt` is
   * when the session ended (epoch ms): the same instant its end event gives, so the recording's
   * length and the recordings list's agree.
   */
  close(participants: string[], endedAt = this.options.now()): Promise<void> {
    this.closing ??= this.finish(participants, endedAt).catch((error: Error) =>
      this.fail(error.message),
    );
    return this.closing;
  }

  private async finish(participants: string[], endedAt: number): Promise<void> {
    this.flush();
    const durationMs = Math.max(0, endedAt - this.header.start);
    await this.written;
    if (this.failed) return;
    const streams = [this.writer.cast, this.writer.keyframes, this.writer.chunks];
    for (const stream of streams) stream.end();
    await Promise.all(streams.map((stream) => once(stream, 'close')));
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
      seekPoints: this.seekPoints,
      marks: this.marks,
      integrity: {
        algorithm: 'sha256-chain',
        chunks: this.chunks,
        head: this.chain,
        keyframes: this.keyframesHash.digest('hex'),
      },
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

  /** Turns held events into cast lines and hands them to compression as one member. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.held.length === 0 || this.failed) return;
    let text = '';
    const first = this.held[0]!.t;
    for (const { t, kind, data } of this.held) {
      const value = typeof data === 'string' ? data : data.toString('utf8');
      text += `${JSON.stringify([Math.round(t * 1e6) / 1e6, kind, value])}\n`;
    }
    this.held = [];
    this.heldBytes = 0;
    this.write(Buffer.from(text, 'utf8'), first);
  }

  /**
   * Level 1 compresses terminal text about eightfold at over 200 MiB/s, but crawls (about
   * 40 MiB/s) on output that does not compress (base64, binary noise), which would take the CPU
   * a `cat` of such a file needs. Members of such output are stored (level 0, several hundred
   * MiB/s); every 16th is compressed to see whether the output compresses again.
   * `t` is the time of the member's first event.
   */
  private write(chunk: Buffer, t: number): void {
    const offset = this.castBytes;
    const seekPoint = this.seekPointWanted || offset - this.lastSeekOffset >= seekPointEveryBytes;
    if (seekPoint) {
      this.seekPointWanted = false;
      this.lastSeekOffset = offset;
    }
    this.castBytes += chunk.length;
    this.backlog += chunk.length;
    const probe = !this.storing || ++this.members % 16 === 0;
    const level = probe ? 1 : 0;
    // Compression starts now, in parallel with earlier members; writing waits for their turn.
    const compressed = gzipAsync(chunk, { level, chunkSize: 256 * 1024 });
    this.written = this.written.then(async () => {
      const member = await compressed.catch((error: Error) => this.fail(error.message));
      if (!member || this.failed) return;
      if (probe && chunk.length >= 64 * 1024) this.storing = member.length > chunk.length / 2;
      if (seekPoint) this.seekPoints.push({ t, offset, gz: this.gzBytes });
      // Hashed as written, in the order written, so the chain matches the file byte for byte.
      this.chain = nextChain(this.chain, member);
      const record = { i: this.chunks++, gz: this.gzBytes, length: member.length, offset, t };
      this.writer.chunks.write(chunkLine({ ...record, chain: this.chain }));
      this.gzBytes += member.length;
      this.writer.cast.write(member);
      this.backlog -= chunk.length;
      if (this.backlog === 0) this.options.onDrain?.();
    });
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    clearTimeout(this.timer);
    this.held = [];
    for (const stream of [this.writer.cast, this.writer.keyframes, this.writer.chunks])
      stream.destroy();
    this.options.onFailure(reason);
    this.options.onDrain?.();
  }
}
