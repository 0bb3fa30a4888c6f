import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { RecordingMark } from '@postern/contracts';
import { castEncoder, type CastEncoder, type EncodedMember } from './cast-encoder.js';
import { HeldEvents } from './held-events.js';
import { chainSeed, chunkLine, sha256Hex } from './recording-integrity.js';
import type { RecordingIndex, RecordingWriter, SeekPoint } from './recording-store.js';

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
  /** Where cast lines are made and compressed; the process's shared worker by default. */
  encoder?: CastEncoder;
}

/**
 * Where a keyframe taken now belongs: the time, and the offset in the uncompressed cast, known
 * once everything before it is encoded.
 */
export interface CastPosition {
  t: number;
  offset: Promise<number>;
}

/** Output handed to compression and not yet written beyond which the session should pause. */
const maxBacklogBytes = 8 * 1024 * 1024;

/** A reader starting at the nearest seek point decompresses at most about this much to skip. */
const seekPointEveryBytes = 1024 * 1024;

/**
 * Writes one session as asciicast v2, gzip-compressed, plus its keyframes (docs/recordings.md).
 * The session's hot path only copies output into blocks (held-events.ts). On a timer, or once
 * enough is held, the blocks go to the encoder's thread (cast-encoder.ts), which makes the cast
 * lines and compresses them as one gzip member (gunzip reads concatenated members as one file);
 * members are written in order. A member is complete on disk once written, so a crash loses
 * only what was held or being encoded.
 */
export class SessionRecorder {
  private held = new HeldEvents();
  /** Joins and resizes, for the index (the player's timeline markers). */
  private readonly marks: RecordingMark[] = [];
  /** Bytes of the uncompressed cast written so far. */
  private castBytes = 0;
  private keyframeBytes = 0;
  private readonly keyframes: RecordingIndex['keyframes'] = [];
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  private closing: Promise<void> | undefined;
  /** Members being encoded or written, in cast order. */
  private written: Promise<void> = Promise.resolve();
  /** Keyframe lines waiting for their offset, in the order they were taken. */
  private keyframesWritten: Promise<void> = Promise.resolve();
  private readonly encoder: CastEncoder;
  /** This recording's number at the encoder, which keeps its chain as it makes members. */
  private readonly encoderRecording: number;
  /** Members handed to the encoder so far. */
  private requested = 0;
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
    this.encoder = options.encoder ?? castEncoder;
    this.encoderRecording = this.encoder.newRecording();
    for (const stream of [writer.cast, writer.keyframes, writer.chunks]) {
      stream.on('error', (error: Error) => this.fail(error.message));
    }
    this.held.line(
      `${JSON.stringify({
        version: 2,
        width: header.width,
        height: header.height,
        timestamp: Math.floor(header.start / 1000),
        env: { TERM: header.term },
        title: header.title,
      })}\n`,
    );
    this.flush();
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
    this.held.output(this.elapsed(), data);
    this.heldMore();
  }

  resize(width: number, height: number): void {
    if (this.failed || this.closing) return;
    const t = this.elapsed();
    const size = `${width}x${height}`;
    this.held.text({ t, kind: 'r', text: size });
    this.heldMore();
    this.marks.push({ t, kind: 'resize', label: size });
  }

  /** Someone joined: an asciicast marker (`m`) in the cast, and a mark in the index. */
  join(user: string, mode: string): void {
    if (this.failed || this.closing) return;
    const t = this.elapsed();
    const label = `${user} joined (${mode})`;
    this.held.text({ t, kind: 'm', text: label });
    this.heldMore();
    this.marks.push({ t, kind: 'join', label });
  }

  /**
   * Where the next event starts: a keyframe taken now describes the screen at this offset, so
   * a player draws the keyframe and plays the cast from here.
   */
  position(): CastPosition {
    this.flush();
    this.seekPointWanted = true;
    // Registered before any later member's turn in the chain: castBytes then counts exactly
    // the members flushed so far.
    return { t: this.elapsed(), offset: this.written.then(() => this.castBytes) };
  }

  /** Stores a serialized screen for a position taken earlier, once its offset is known. */
  keyframe(at: CastPosition, size: { w: number; h: number }, screen: string) {
    if (this.failed || this.closing) return;
    this.keyframesWritten = this.keyframesWritten.then(async () => {
      const position = { t: at.t, offset: await at.offset };
      if (this.failed) return;
      const line = `${JSON.stringify({ ...position, cols: size.w, rows: size.h, screen })}\n`;
      const length = Buffer.byteLength(line);
      this.keyframes.push({ ...position, at: this.keyframeBytes, length, sha256: sha256Hex(line) });
      this.keyframeBytes += length;
      this.keyframesHash.update(line);
      this.writer.keyframes.write(line);
    });
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
    this.encoder.forget(this.encoderRecording);
    await this.keyframesWritten;
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

  /** Seconds since the start, to the microsecond (as the cast's lines carry it). */
  private elapsed(): number {
    return Math.round(Math.max(0, this.options.now() - this.header.start) * 1000) / 1e6;
  }

  private heldMore(): void {
    if (this.held.bytes >= (this.options.flushBytes ?? 256 * 1024)) return this.flush();
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.options.flushDelayMs ?? 200);
    this.timer.unref();
  }

  /**
   * Hands what is held to the encoder as one member. Level 1 compresses terminal text about
   * eightfold at over 200 MiB/s, but crawls (about 40 MiB/s) on output that does not compress
   * (base64, binary noise). Members of such output are stored (level 0, several hundred MiB/s);
   * every 16th probes whether the output compresses again: its first 32 KiB are compressed, and
   * the member too only if they halved (cast-encoder.ts, MemberLevel).
   */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.held.empty || this.failed) return;
    const bytes = this.held.bytes;
    const { events, blocks } = this.held.take();
    const first = events[0]!;
    const t = 't' in first ? first.t : 0;
    const wantSeekPoint = this.seekPointWanted;
    this.seekPointWanted = false;
    const probe = !this.storing || ++this.members % 16 === 0;
    this.backlog += bytes;
    // Encoding starts now, in parallel with earlier members' writes; writing waits its turn.
    // The first member (the header's) starts the encoder's chain from the seed.
    const seed = this.requested++ === 0 ? { seed: this.chain } : {};
    // Storing, a probe compresses only if a sample says the output compresses again.
    const level = !this.storing ? 1 : probe ? 'probe' : 0;
    const encoded = this.encoder.encode(events, blocks, level, {
      recording: this.encoderRecording,
      ...seed,
    });
    this.written = this.written.then(async () => {
      const result = await encoded.catch((error: Error) => this.fail(error.message));
      this.backlog -= bytes;
      if (!result || this.failed) return;
      this.writeMember(result, { t, probe, wantSeekPoint });
      if (this.backlog === 0) this.options.onDrain?.();
    });
  }

  /** Writes a member after those before it; `t` is the time of its first event. */
  private writeMember(
    { member, castLength, chain }: EncodedMember,
    { t, probe, wantSeekPoint }: { t: number; probe: boolean; wantSeekPoint: boolean },
  ): void {
    const offset = this.castBytes;
    this.castBytes += castLength;
    if (probe && castLength >= 64 * 1024) this.storing = member.length > castLength / 2;
    if (wantSeekPoint || offset - this.lastSeekOffset >= seekPointEveryBytes) {
      this.lastSeekOffset = offset;
      this.seekPoints.push({ t, offset, gz: this.gzBytes });
    }
    // Hashed by the encoder in the order written, so the chain matches the file byte for byte.
    this.chain = chain;
    const record = { i: this.chunks++, gz: this.gzBytes, length: member.length, offset, t };
    this.writer.chunks.write(chunkLine({ ...record, chain: this.chain }));
    this.gzBytes += member.length;
    this.writer.cast.write(member);
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    clearTimeout(this.timer);
    this.held = new HeldEvents();
    this.encoder.forget(this.encoderRecording);
    for (const stream of [this.writer.cast, this.writer.keyframes, this.writer.chunks])
      stream.destroy();
    this.options.onFailure(reason);
    this.options.onDrain?.();
  }
}
