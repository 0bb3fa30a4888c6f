import {
  desktopPlaybackMaxSpeed,
  desktopPlaybackMinSpeed,
  type DesktopPlaybackAction,
  type DesktopPlaybackFrame,
} from '@postern/contracts';
import type { BlobStore } from '../../blobs/blob-store.js';
import type { DesktopRecordingIndex } from './desktop-recording-blobs.js';
import type { ChunkRecord } from '../recordings/recording-integrity.js';
import { openRecords, readChunks, type RecordCursor } from './desktop-recording-reader.js';
import { toEvent } from './record-format.js';

/** Where the player's frames go: the playback socket. */
export interface PlaybackSink {
  send(frame: DesktopPlaybackFrame): void;
  /** Bytes sent and not yet taken by the client. */
  buffered(): number;
}

export interface DesktopPlayerOptions {
  blobs: BlobStore;
  index: DesktopRecordingIndex;
  sink: PlaybackSink;
  now?: () => number;
  /** Past this many bytes unread by the client, nothing more is read or sent (default 4 MiB). */
  highWaterBytes?: number;
}

/** The longest single wait: a long silence is waited out in steps. */
const maxSleepMs = 60_000;
/** How often a player held back by a slow client looks again. */
const drainPollMs = 25;

/**
 * Plays one desktop recording onto a socket in real time (times `speed`): a seek opens the
 * records at the last keyframe at or before the position and sends everything up to it at once;
 * then each event goes out when the position reaches its time. The position moves only while
 * playing. A client that does not read holds the player still: at most one chunk and the
 * socket's high-water mark are held, however long the recording.
 */
export class DesktopPlayer {
  private playing = true;
  private speed = 1;
  /** The position was `pos` at wall time `wall`. */
  private anchor = { wall: 0, pos: 0 };
  private generation = 0;
  private cursor: RecordCursor | undefined;
  /** The chunk list, read at the first seek and kept for the others. */
  private chunks: Promise<ChunkRecord[]> | undefined;
  private ended = false;
  private closed = false;
  private readonly wakers = new Set<() => void>();
  private readonly now: () => number;

  constructor(private readonly options: DesktopPlayerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Plays from the start (or shows it, paused). */
  start(autoplay = true): void {
    this.playing = autoplay;
    this.seek(0);
  }

  act(action: DesktopPlaybackAction): void {
    if (this.closed) return;
    switch (action.action) {
      case 'play/pause':
        if (this.ended && !this.playing) {
          this.playing = true;
          return this.seek(0);
        }
        this.reanchor();
        this.playing = !this.playing;
        break;
      case 'speed':
        this.reanchor();
        this.speed = Math.min(
          desktopPlaybackMaxSpeed,
          Math.max(desktopPlaybackMinSpeed, action.speed),
        );
        break;
      case 'seek':
        return this.seek(Math.min(action.pos, this.options.index.durationMs));
    }
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.generation += 1;
    this.cursor?.close();
    this.wake();
  }

  private position(): number {
    const { wall, pos } = this.anchor;
    return this.playing ? pos + (this.now() - wall) * this.speed : pos;
  }

  private reanchor(): void {
    this.anchor = { wall: this.now(), pos: this.position() };
  }

  private seek(pos: number): void {
    const generation = ++this.generation;
    this.cursor?.close();
    this.cursor = undefined;
    this.ended = false;
    this.anchor = { wall: this.now(), pos };
    this.wake();
    void this.run(generation, pos).catch(() => {
      if (generation !== this.generation) return;
      this.send({ message: 'error', errorText: 'the recording could not be read' });
      this.finish(this.position());
    });
  }

  private async run(generation: number, pos: number): Promise<void> {
    const { index, blobs } = this.options;
    const keyframe = index.keyframes.findLast((k) => k.ms <= pos) ?? index.keyframes[0];
    this.chunks ??= readChunks(blobs, index);
    const cursor = await openRecords(blobs, index, keyframe?.at ?? 0, await this.chunks);
    if (generation !== this.generation) return cursor.close();
    this.cursor = cursor;
    // A keyframe after the first chunk: the screen's size at that time comes first.
    if (keyframe && keyframe.at > 0) {
      const { ms, width, height } = keyframe;
      this.send({ message: { type: 'screen', ms, width, height } });
    }
    for (;;) {
      const record = await cursor.next();
      if (generation !== this.generation) return;
      if (!record) {
        if (cursor.damage) this.send({ message: 'error', errorText: cursor.damage });
        return this.finish(this.position());
      }
      const event = toEvent(record);
      if (!event) continue;
      if (!(await this.due(generation, event.ms))) return;
      this.send({ message: event });
      if (event.type === 'end') return this.finish(event.ms);
    }
  }

  /** Waits until the event at `ms` is due and the client reads; false once it is stale. */
  private async due(generation: number, ms: number): Promise<boolean> {
    for (;;) {
      if (generation !== this.generation) return false;
      if (this.options.sink.buffered() > (this.options.highWaterBytes ?? 4 * 1024 * 1024)) {
        await this.sleep(drainPollMs);
        continue;
      }
      const position = this.position();
      if (ms <= position) return true;
      await this.sleep(this.playing ? (ms - position) / this.speed : maxSleepMs);
    }
  }

  private finish(ms: number): void {
    this.cursor?.close();
    this.cursor = undefined;
    this.ended = true;
    this.playing = false;
    this.anchor = { wall: this.now(), pos: ms };
    this.send({ message: 'end' });
  }

  private send(frame: DesktopPlaybackFrame): void {
    if (!this.closed) this.options.sink.send(frame);
  }

  /** Resolves after `ms`, or at once when an action or a close wakes the player. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(maxSleepMs, Math.max(0, ms)));
      this.wakers.add(done);
    });
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }
}
