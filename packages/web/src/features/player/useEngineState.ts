import { useMemo, useSyncExternalStore } from 'react';
import type { PlaybackSpeed, PlaybackState } from './playbackTypes';

/** What a recording's playback engine offers the player, whatever it draws (terminal, desktop). */
export interface PlayableEngine {
  subscribe(listener: () => void): () => void;
  getState(): PlaybackState;
  play(): void;
  pause(): void;
  toggle(): void;
  seek(ms: number): void;
  seekBy(deltaMs: number): void;
  setSpeed(speed: PlaybackSpeed): void;
  /** Only where idle stretches can be skipped (terminal recordings). */
  setSkipIdle?(skipIdle: boolean): void;
}

/** What the controls may do; a stand-in that does nothing until the engine exists. */
export type PlaybackControls = Required<Omit<PlayableEngine, 'subscribe' | 'getState'>>;

const subscribeNothing = () => () => undefined;

/**
 * An engine's state as React state, and controls that reach it once it exists. Before the
 * engine is created (its surface not yet mounted) the state is loading, at 0, of the known
 * duration.
 */
export function useEngineState(engine: PlayableEngine | null, durationMs: number) {
  const waiting = useMemo<PlaybackState>(
    () => ({ status: 'loading', timeMs: 0, durationMs, speed: 1, skipIdle: false }),
    [durationMs],
  );
  const state = useSyncExternalStore(
    engine?.subscribe ?? subscribeNothing,
    engine?.getState ?? (() => waiting),
  );
  const controls = useMemo<PlaybackControls>(
    () => ({
      play: () => engine?.play(),
      pause: () => engine?.pause(),
      toggle: () => engine?.toggle(),
      seek: (ms) => engine?.seek(ms),
      seekBy: (ms) => engine?.seekBy(ms),
      setSpeed: (speed) => engine?.setSpeed(speed),
      setSkipIdle: (on) => engine?.setSkipIdle?.(on),
    }),
    [engine],
  );
  return { state, controls };
}
