import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { PlaybackEngine } from './PlaybackEngine';
import type { PlayerTerminal } from './playerTerminal';
import type { FetchChunk, PlaybackClock, PlaybackSetup, PlaybackState } from './playbackTypes';

/** What the controls may do; a stand-in that does nothing until the terminal is open. */
export type PlaybackControls = Pick<
  PlaybackEngine,
  'play' | 'pause' | 'toggle' | 'seek' | 'seekBy' | 'setSpeed' | 'setSkipIdle'
>;

export const browserClock: PlaybackClock = {
  now: () => performance.now(),
  nextFrame: (run) => {
    const id = requestAnimationFrame(run);
    return () => cancelAnimationFrame(id);
  },
};

const subscribeNothing = () => () => undefined;

interface Options {
  setup: PlaybackSetup;
  /** Must keep its identity: a new one starts the playback over. */
  fetchChunk: FetchChunk;
  openTerminal: (container: HTMLElement) => PlayerTerminal;
  clock?: PlaybackClock;
}

/**
 * A PlaybackEngine drawing into a terminal opened in `terminalRef`'s element, its state as
 * React state. The engine starts playing once the terminal is open.
 */
export function usePlayback({ setup, fetchChunk, openTerminal, clock = browserClock }: Options) {
  const terminalRef = useRef<HTMLDivElement>(null);
  const [engine, setEngine] = useState<PlaybackEngine | null>(null);
  const { durationMs, cols, rows } = setup;

  useEffect(() => {
    const container = terminalRef.current;
    if (!container) return;
    const terminal = openTerminal(container);
    const created = new PlaybackEngine({ durationMs, cols, rows }, { fetchChunk, terminal, clock });
    created.start();
    setEngine(created);
    return () => {
      created.dispose();
      terminal.dispose();
    };
  }, [durationMs, cols, rows, fetchChunk, openTerminal, clock]);

  // Before the engine exists: loading, at 0, of the known duration.
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
      setSkipIdle: (on) => engine?.setSkipIdle(on),
    }),
    [engine],
  );
  return { state, controls, terminalRef };
}
