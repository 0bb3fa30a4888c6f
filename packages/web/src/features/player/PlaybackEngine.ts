import type { CastEvent, RecordingChunk } from '@postern/contracts';
import { EventBuffer } from './eventBuffer';
import type {
  ChunkQuery,
  FetchChunk,
  PlaybackClock,
  PlaybackSetup,
  PlaybackSpeed,
  PlaybackState,
  PlaybackTerminal,
} from './playbackTypes';

/** With skip idle on, a longer silence plays as this long. */
export const idleCapMs = 1000;
/** Fetch the next chunk when less than this much playback (at the current speed) is buffered… */
export const prefetchAheadMs = 10_000;
/** …or less than this much data, so a burst of output never runs dry mid-frame. */
export const prefetchAheadBytes = 64 * 1024;
/**
 * The most one frame may move the clock. Frames stop in a hidden tab; when it is shown again the
 * playback goes on from where it was instead of jumping ahead by the time it was hidden.
 */
export const maxFrameMs = 1000;

/** "COLSxROWS" of a resize event, or undefined when malformed. */
export function parseSize(data: string): { cols: number; rows: number } | undefined {
  const match = /^(\d+)x(\d+)$/.exec(data.trim());
  if (!match) return undefined;
  const cols = Number(match[1]);
  const rows = Number(match[2]);
  return cols > 0 && rows > 0 ? { cols, rows } : undefined;
}

export interface PlaybackDeps {
  fetchChunk: FetchChunk;
  terminal: PlaybackTerminal;
  clock: PlaybackClock;
}

/**
 * Plays a recording chunk by chunk (docs/recordings.md, "Playback"): a seek asks for the chunk at
 * a time (the nearest keyframe's screen and the events after it) and fast-forwards to the time;
 * playing on asks for the next chunk ahead of the clock, one request at a time. A seek abandons
 * whatever was in flight: answers of an older generation are dropped.
 */
export class PlaybackEngine {
  private state: PlaybackState;
  private readonly listeners = new Set<() => void>();
  private readonly buffer = new EventBuffer();
  private next: number | null = null;
  private request: AbortController | undefined;
  private generation = 0;
  /** What the user asked for; a seek keeps it, so playback resumes after loading. */
  private wantsToPlay = true;
  private positionMs = 0;
  /** The time of the last event drawn: skip idle measures silences from here. */
  private lastEventMs = 0;
  private lastFrameAt = 0;
  private cancelFrame: (() => void) | undefined;
  private disposed = false;

  constructor(
    private readonly setup: PlaybackSetup,
    private readonly deps: PlaybackDeps,
  ) {
    this.state = {
      status: 'loading',
      timeMs: 0,
      durationMs: setup.durationMs,
      speed: 1,
      // Real time, as the session happened; skipping idle time is the user's choice.
      skipIdle: false,
    };
  }

  // For useSyncExternalStore: both stable, the snapshot replaced on change.
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getState = (): PlaybackState => this.state;

  /** Loads the start and plays it (or stays paused when `autoplay` is false). */
  start(autoplay = true): void {
    this.wantsToPlay = autoplay;
    this.seek(0);
  }

  play(): void {
    this.wantsToPlay = true;
    const { status } = this.state;
    if (status === 'ended') this.seek(0);
    else if (status === 'error') this.seek(this.positionMs);
    else if (status === 'paused') this.resume();
  }

  pause(): void {
    this.wantsToPlay = false;
    if (this.state.status !== 'playing') return;
    this.stopFrames();
    this.update({ status: 'paused', timeMs: this.positionMs });
  }

  toggle(): void {
    if (this.state.status === 'playing') this.pause();
    else this.play();
  }

  setSpeed(speed: PlaybackSpeed): void {
    this.update({ speed });
    this.prefetch();
  }

  setSkipIdle(skipIdle: boolean): void {
    this.update({ skipIdle });
  }

  /** Any time, forward or back: always from the nearest keyframe, never replayed from 0. */
  seek(ms: number): void {
    if (this.disposed) return;
    const target = Math.min(Math.max(0, ms), this.state.durationMs);
    this.stopFrames();
    this.generation++;
    this.request?.abort();
    this.request = undefined;
    this.buffer.clear();
    this.next = null;
    this.positionMs = target;
    this.update({ status: 'loading', timeMs: target, error: undefined });
    void this.load(target).catch((err: unknown) => this.fail(err));
  }

  /** Forward or back from where the playback is (the keyboard's ±5 s). */
  seekBy(deltaMs: number): void {
    this.seek(this.positionMs + deltaMs);
  }

  dispose(): void {
    this.disposed = true;
    this.generation++;
    this.request?.abort();
    this.stopFrames();
    this.listeners.clear();
  }

  private async load(targetMs: number): Promise<void> {
    const first = await this.fetchCurrent({ at: targetMs / 1000 });
    if (!first) return;
    this.drawStart(first.screen);
    this.receive(first);
    this.drawDue(targetMs);
    // The chunk may end before the target: keep fast-forwarding through the following ones.
    while (this.buffer.isEmpty && this.next !== null) {
      const more = await this.fetchCurrent({ offset: this.next });
      if (!more) return;
      this.receive(more);
      this.drawDue(targetMs);
    }
    // A silence that the seek landed in counts from the seek, not from the event before it.
    this.lastEventMs = targetMs;
    if (this.endIfDone()) return;
    if (this.wantsToPlay) this.resume();
    else this.update({ status: 'paused', timeMs: targetMs });
  }

  /** The screen a seek starts from: the keyframe, or a blank one of the session's first size. */
  private drawStart(screen: RecordingChunk['screen']): void {
    const { terminal } = this.deps;
    terminal.reset();
    if (screen) {
      terminal.resize(screen.cols, screen.rows);
      terminal.write(screen.data);
      this.lastEventMs = screen.t * 1000;
    } else {
      terminal.resize(this.setup.cols, this.setup.rows);
      this.lastEventMs = 0;
    }
  }

  private receive(chunk: RecordingChunk): void {
    this.buffer.append(chunk.events);
    this.next = chunk.next;
    if (chunk.damaged) this.update({ damagedAtMs: chunk.damaged.t * 1000 });
    // The URL's duration may be rounded: never stop before the last event.
    const lastMs = this.buffer.lastAtMs();
    if (lastMs !== undefined && lastMs > this.state.durationMs) this.update({ durationMs: lastMs });
  }

  /** Draws every event due by `ms` as one write (a resize splits it: output before, after). */
  private drawDue(ms: number): void {
    let output = '';
    for (const [t, kind, data] of this.buffer.takeUntil(ms)) {
      this.lastEventMs = t * 1000;
      if (kind === 'o') output += data;
      else if (kind === 'r') output = this.resizeAfter(output, data);
      // Other kinds come from newer recorders: skipped.
    }
    if (output) this.deps.terminal.write(output);
  }

  private resizeAfter(output: string, data: CastEvent[2]): string {
    const size = parseSize(data);
    if (!size) return output;
    if (output) this.deps.terminal.write(output);
    this.deps.terminal.resize(size.cols, size.rows);
    return '';
  }

  private resume(): void {
    this.update({ status: 'playing', timeMs: this.positionMs });
    this.lastFrameAt = this.deps.clock.now();
    this.scheduleFrame();
    this.prefetch();
  }

  private readonly tick = (): void => {
    this.cancelFrame = undefined;
    if (this.state.status !== 'playing') return;
    const now = this.deps.clock.now();
    const elapsedMs = Math.min(now - this.lastFrameAt, maxFrameMs) * this.state.speed;
    this.lastFrameAt = now;
    // Out of events with more on the way: the clock waits for them.
    const starved = this.buffer.isEmpty && this.next !== null;
    if (!starved) {
      const position = Math.min(this.positionMs + elapsedMs, this.state.durationMs);
      this.positionMs = this.state.skipIdle ? this.skipSilence(position) : position;
      this.drawDue(this.positionMs);
    }
    if (this.endIfDone()) return;
    this.update({ timeMs: this.positionMs });
    this.prefetch();
    this.scheduleFrame();
  };

  /** Past a second of silence, jumps to the next event (or the end), keeping the overshoot. */
  private skipSilence(position: number): number {
    const idleEnd = this.lastEventMs + idleCapMs;
    const nextAt = this.buffer.nextAtMs() ?? this.state.durationMs;
    if (position <= idleEnd || nextAt <= idleEnd) return position;
    return Math.min(position + (nextAt - idleEnd), this.state.durationMs);
  }

  /**
   * Played (or seeked) to the end with nothing left to fetch; a damaged recording ends at the
   * damage, since nothing after it will come.
   */
  private endIfDone(): boolean {
    const done = this.buffer.isEmpty && this.next === null;
    const { damagedAtMs, durationMs } = this.state;
    const endMs =
      damagedAtMs !== undefined
        ? Math.min(Math.max(damagedAtMs, this.lastEventMs), durationMs)
        : durationMs;
    if (!done || this.positionMs < endMs) return false;
    this.stopFrames();
    this.wantsToPlay = false;
    this.update({ status: 'ended', timeMs: Math.max(endMs, this.positionMs) });
    return true;
  }

  /** One request at a time, and only when what is buffered runs low. */
  private prefetch(): void {
    if (this.request || this.next === null || this.state.status === 'loading') return;
    const lastMs = this.buffer.lastAtMs() ?? this.positionMs;
    const aheadMs = (lastMs - this.positionMs) / this.state.speed;
    if (aheadMs >= prefetchAheadMs && this.buffer.size >= prefetchAheadBytes) return;
    void this.fetchCurrent({ offset: this.next }).then(
      (chunk) => {
        if (!chunk) return;
        this.receive(chunk);
        this.prefetch();
      },
      (err: unknown) => this.fail(err),
    );
  }

  /** The chunk, or undefined when a seek (or dispose) made the answer stale. */
  private async fetchCurrent(query: ChunkQuery): Promise<RecordingChunk | undefined> {
    const generation = this.generation;
    const controller = new AbortController();
    this.request = controller;
    const current = () => generation === this.generation && !this.disposed;
    try {
      const chunk = await this.deps.fetchChunk(query, controller.signal);
      return current() ? chunk : undefined;
    } catch (err) {
      if (!current()) return undefined; // aborted by a newer seek
      throw err;
    } finally {
      if (this.request === controller) this.request = undefined;
    }
  }

  private fail(err: unknown): void {
    this.stopFrames();
    const error = err instanceof Error ? err.message : String(err);
    this.update({ status: 'error', timeMs: this.positionMs, error });
  }

  private scheduleFrame(): void {
    if (!this.cancelFrame) this.cancelFrame = this.deps.clock.nextFrame(this.tick);
  }

  private stopFrames(): void {
    this.cancelFrame?.();
    this.cancelFrame = undefined;
  }

  private update(change: Partial<PlaybackState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }
}
