import type { BlobStore } from '../../blobs/blob-store.js';
import { captureRecords, copyRect, type Capture } from './capture.js';
import { DesktopChunkWriter } from './chunk-writer.js';
import { Damage } from './damage.js';
import { writeDesktopIndex } from './desktop-recording-blobs.js';
import type { FramebufferSource, Rect } from './framebuffer-source.js';
import type { StoredRecord } from './record-format.js';
import { WriteBudget } from './write-budget.js';

export interface DesktopRecordingOptions {
  sid: string;
  framebuffer: FramebufferSource;
  blobs: BlobStore;
  /** Epoch ms; the recording starts now. */
  now: () => number;
  /** Who took part: who may read the recording under a `participants` rule. */
  participants: string[];
  desktopName?: string;
  /** Called once, when a write fails: the recording has stopped then. */
  onFailure?: (reason: string) => void;
  /** The shortest time between two writes (default 100 ms: 10 frames a second at most). */
  intervalMs?: number;
  /** While the screen changes, a whole screen is written at least this often (default 5 s). */
  keyframeIntervalMs?: number;
  /** zlib's level for the pixels (default 4). */
  level?: number;
  /** The most it writes (write-budget.ts); `false` for no limit (benchmarks' comparison). */
  budget?: { bytesPerSecond: number; burstBytes: number } | false;
  /** Bytes the blob store may hold unwritten before writes wait for it (default 8 MiB). */
  maxBacklogBytes?: number;
}

export interface DesktopRecording {
  /** Something was copied through the clipboard: its size is recorded, never its content. */
  clipboard(direction: 'in' | 'out', bytes: number): void;
  /**
   * Writes the last changes and the end, and seals the recording. `stoppedAt` (epoch ms) is when
   * the session ended, the instant its end event gives, so the list and the player agree on
   * the length. Never rejects: after a failure it resolves with what was written.
   */
  close(stoppedAt?: number): Promise<{ size: number; durationMs: number }>;
}

/** 18 MB a minute on average, 1 MB saved up at most: under 20 MB in any minute. */
export const defaultDesktopBudget = { bytesPerSecond: 300_000, burstBytes: 1_000_000 };
/** Damage covering this much of the screen is written as a whole screen (a keyframe). */
const wholeScreenShare = 0.6;
/** Clipboard events held while the disk is stuck; later ones are not recorded. */
const maxPendingRecords = 1024;

/** What a write takes, decided before the pixels are read (they may need work first). */
interface CapturePlan {
  ms: number;
  width: number;
  height: number;
  rects: Rect[];
  keyframe: boolean;
  records: Capture['records'];
}

/**
 * Records a desktop session from its framebuffer (docs/desktops.md, "Recordings"). Updates only
 * mark damage; at most every `intervalMs` the damage is read from the framebuffer's current
 * pixels, each rectangle deflated on its own on zlib's thread pool, and written as one chunk.
 */
export function startDesktopRecording(options: DesktopRecordingOptions): DesktopRecording {
  return new DesktopRecorder(options);
}

class DesktopRecorder implements DesktopRecording {
  private readonly startedAt: number;
  private readonly initialSize: { width: number; height: number };
  private readonly damage = new Damage();
  private readonly writer: DesktopChunkWriter;
  private readonly budget: WriteBudget | undefined;
  private readonly stops: (() => void)[];
  /** Records that go before the next capture's rectangles: the header, sizes, clipboard. */
  private pending: StoredRecord[];
  private keyframeWanted = true;
  /** The next keyframe follows a resize (or is the first): it does not wait for the budget. */
  private urgent = true;
  private lastWriteAt = -Infinity;
  private lastKeyframeAt = -Infinity;
  /** The time of the last capture: no later record is earlier. */
  private lastMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private waitingForDisk = false;
  private closing: Promise<{ size: number; durationMs: number }> | undefined;
  private failed = false;

  constructor(private readonly options: DesktopRecordingOptions) {
    const { framebuffer: screen, now, sid } = options;
    this.startedAt = now();
    this.initialSize = { width: screen.width, height: screen.height };
    this.writer = new DesktopChunkWriter(options.blobs, sid, (error) => this.fail(error.message));
    const budget = options.budget ?? defaultDesktopBudget;
    if (budget) this.budget = new WriteBudget(budget.bytesPerSecond, budget.burstBytes, now());
    const header = {
      version: 1 as const,
      sid,
      startedAt: this.startedAt,
      participants: options.participants,
      desktopName: options.desktopName ?? '',
    };
    this.pending = [
      { type: 'header', ms: 0, header },
      { type: 'screen', ms: 0, width: screen.width, height: screen.height },
    ];
    this.stops = [
      screen.onUpdate((rects) => this.damaged(rects)),
      screen.onResize((width, height) => this.resized(width, height)),
    ];
    // The first screen as it is at the start.
    this.write();
  }

  clipboard(direction: 'in' | 'out', bytes: number): void {
    if (this.closing || this.failed || this.pending.length >= maxPendingRecords) return;
    this.pending.push({ type: 'clipboard', ms: this.elapsed(), direction, bytes });
    this.schedule();
  }

  close(stoppedAt = this.options.now()): Promise<{ size: number; durationMs: number }> {
    // A write may have captured the screen after the instant the session ended: the end is
    // never before it, so times only ever grow.
    const durationMs = Math.max(this.lastMs, Math.round(stoppedAt - this.startedAt));
    this.closing ??= this.finish(durationMs);
    return this.closing;
  }

  private async finish(durationMs: number): Promise<{ size: number; durationMs: number }> {
    this.stopListening();
    try {
      await this.writing;
      if (!this.failed && this.hasWork()) await this.encode(await this.capture(durationMs));
      if (this.failed) return { size: this.writer.position, durationMs };
      this.writer.append([{ type: 'end', ms: durationMs }]);
      await this.writer.finish();
      if (this.failed) return { size: this.writer.position, durationMs };
      await writeDesktopIndex(this.options.blobs, {
        version: 1,
        format: 'postern-desktop',
        sid: this.options.sid,
        sealed: true,
        incomplete: false,
        durationMs,
        participants: this.options.participants,
        desktopName: this.options.desktopName ?? '',
        ...this.initialSize,
        size: this.writer.position,
        keyframes: this.writer.keyframes,
        integrity: {
          algorithm: 'sha256-chain',
          chunks: this.writer.chunks,
          head: this.writer.chain,
        },
      });
    } catch (error) {
      this.fail(error instanceof Error ? error.message : String(error));
    }
    return { size: this.writer.position, durationMs };
  }

  private damaged(rects: Rect[]): void {
    const { width, height } = this.options.framebuffer;
    for (const rect of rects) this.damage.add(rect, width, height);
    this.schedule();
  }

  private resized(width: number, height: number): void {
    // The next write is a whole screen of the new size: older damage is part of it.
    this.damage.clear();
    this.pending.push({ type: 'screen', ms: this.elapsed(), width, height });
    this.keyframeWanted = true;
    this.urgent = true;
    this.schedule();
  }

  private hasWork(): boolean {
    return this.keyframeWanted || !this.damage.empty || this.pending.length > 0;
  }

  /** Sets the timer of the next write: the interval after the last, and the budget allows. */
  private schedule(): void {
    if (this.timer || this.writing || this.waitingForDisk || this.failed || this.closing) return;
    if (!this.hasWork()) return;
    if (this.writer.backlog > (this.options.maxBacklogBytes ?? 8 * 1024 * 1024)) {
      // A stuck disk: damage keeps merging (bounded), nothing more is queued until it drains.
      this.waitingForDisk = true;
      void this.writer.drained().then(() => {
        this.waitingForDisk = false;
        this.schedule();
      });
      return;
    }
    const now = this.options.now();
    let due = this.lastWriteAt + (this.options.intervalMs ?? 100);
    if (this.budget && !this.urgent) due = Math.max(due, this.budget.readyAt(now));
    this.timer = setTimeout(() => this.write(), Math.max(0, due - now));
    this.timer.unref();
  }

  private write(): void {
    this.timer = undefined;
    if (this.failed || this.closing) return;
    this.writing = this.capture()
      .then((capture) => this.encode(capture))
      .catch((error: Error) => this.fail(error.message))
      .finally(() => {
        this.writing = undefined;
        this.schedule();
      });
  }

  /**
   * Takes what changed (see `plan`) and reads it. A screen with work to do first (decoding,
   * off the event loop) is read as it was now once that is done: what changes meanwhile comes
   * as updates after this, and goes in the next write.
   */
  private async capture(maxMs = Infinity): Promise<Capture> {
    const screen = this.options.framebuffer;
    const prepared = screen.prepare?.();
    const plan = this.plan(maxMs);
    return this.read(plan, prepared ? (await prepared)() : screen.pixels());
  }

  /**
   * Takes what changed since the last write: a whole screen when one is due (the first, after
   * a resize, every `keyframeIntervalMs` while the screen changes, or when most of it changed),
   * otherwise the damage. `maxMs`: at the close, no event may be later than the end.
   */
  private plan(maxMs = Infinity): CapturePlan {
    const at = this.options.now();
    const ms = Math.max(this.lastMs, Math.min(this.elapsed(at), maxMs));
    this.lastMs = ms;
    const { width, height } = this.options.framebuffer;
    const changed = !this.damage.empty;
    const keyframe =
      this.keyframeWanted ||
      (changed && at - this.lastKeyframeAt >= (this.options.keyframeIntervalMs ?? 5000)) ||
      this.damage.area >= width * height * wholeScreenShare;
    const rects = keyframe ? [{ x: 0, y: 0, width, height }] : this.damage.take();
    this.damage.clear();
    const records = this.pending.map((record) => ({ ...record, ms: Math.min(record.ms, ms) }));
    this.pending = [];
    this.lastWriteAt = at;
    if (keyframe) {
      this.keyframeWanted = this.urgent = false;
      this.lastKeyframeAt = at;
    }
    return { ms, width, height, rects, keyframe, records };
  }

  /** The planned rectangles copied out of `pixels`, the screen as it was when planned. */
  private read(plan: CapturePlan, pixels: Uint8Array): Capture {
    const { ms, width, height, rects, keyframe, records } = plan;
    // Pixels that do not match the planned size (a resize came between) are not misread: the
    // resize asks for a keyframe of its own.
    const usable =
      width > 0 &&
      height > 0 &&
      pixels.length >= width * height * 4 &&
      this.options.framebuffer.width === width;
    if (!usable && keyframe) this.keyframeWanted = this.urgent = true;
    const kept = usable ? rects : [];
    return {
      records,
      ms,
      rects: kept,
      copies: kept.map((rect) => copyRect(pixels, width, rect)),
      keyframe: keyframe && usable ? { ms, width, height } : undefined,
    };
  }

  /** Deflates the captured rectangles (capture.ts) and writes them as one chunk. */
  private async encode(capture: Capture): Promise<void> {
    const records = await captureRecords(capture, this.options.level ?? 4);
    if (this.failed || records.length === 0) return;
    const bytes = this.writer.append(records, capture.keyframe);
    this.budget?.spend(bytes, this.options.now());
  }

  private elapsed(at = this.options.now()): number {
    return Math.max(0, Math.round(at - this.startedAt));
  }

  private stopListening(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const stop of this.stops.splice(0)) stop();
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    this.stopListening();
    this.writer.destroy();
    this.options.onFailure?.(reason);
  }
}
