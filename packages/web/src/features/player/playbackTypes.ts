import type { RecordingChunk } from '@postern/contracts';

/** What the player shows about its playback; replaced, never mutated, on every change. */
export type PlaybackStatus = 'loading' | 'playing' | 'paused' | 'ended' | 'error';

export const playbackSpeeds = [0.5, 1, 2, 4, 8] as const;
export type PlaybackSpeed = (typeof playbackSpeeds)[number];

export interface PlaybackState {
  status: PlaybackStatus;
  timeMs: number;
  durationMs: number;
  speed: PlaybackSpeed;
  /** Gaps between events longer than a second play as one second. */
  skipIdle: boolean;
  /** Why the playback stopped, when status is 'error'. */
  error?: string;
  /**
   * The server found the stored recording damaged (altered or cut) after this moment: the
   * playback ends there instead of failing.
   */
  damagedAtMs?: number;
}

/** A seek (`at`, seconds) or a continuation (`offset` from the previous chunk's `next`). */
export type ChunkQuery = { at: number } | { offset: number };

export type FetchChunk = (query: ChunkQuery, signal: AbortSignal) => Promise<RecordingChunk>;

/** Where the recording is drawn: xterm in the browser, a recorder of calls in tests. */
export interface PlaybackTerminal {
  /** Back to a blank screen with default modes. */
  reset(): void;
  resize(cols: number, rows: number): void;
  write(data: string): void;
}

/** Time and frames: the browser's animation frames, or a fake clock in tests. */
export interface PlaybackClock {
  now(): number;
  /** Runs `run` on the next frame; returns a function that cancels it. */
  nextFrame(run: () => void): () => void;
}

export interface PlaybackSetup {
  durationMs: number;
  /** The size the session started with: the screen of a seek before the first keyframe. */
  cols: number;
  rows: number;
}
