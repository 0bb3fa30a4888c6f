import { useEffect, useRef, useState } from 'react';
import { PlaybackEngine } from './PlaybackEngine';
import type { PlayerTerminal } from './playerTerminal';
import type { FetchChunk, PlaybackClock, PlaybackSetup } from './playbackTypes';
import { useEngineState } from './useEngineState';

export const browserClock: PlaybackClock = {
  now: () => performance.now(),
  nextFrame: (run) => {
    const id = requestAnimationFrame(run);
    return () => cancelAnimationFrame(id);
  },
};

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

  return { ...useEngineState(engine, durationMs), terminalRef };
}
