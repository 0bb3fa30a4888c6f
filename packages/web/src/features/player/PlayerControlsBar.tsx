import { Button, Checkbox, Group, Loader, NativeSelect, Text } from '@mantine/core';
import type { RecordingMark } from '@postern/contracts';
import { useCallback, useState } from 'react';
import { formatDuration } from '../../lib/format';
import { playbackSpeeds, type PlaybackSpeed, type PlaybackState } from './playbackTypes';
import { Timeline } from './Timeline';
import type { PlaybackControls } from './useEngineState';

interface Props {
  state: PlaybackState;
  controls: PlaybackControls;
  /** Joins and resizes, marked on the timeline. */
  marks: readonly RecordingMark[];
  /** Offer Skip idle (default); a player whose server keeps time has none. */
  skipIdle?: boolean;
}

const speedOptions = playbackSpeeds.map((speed) => ({ value: String(speed), label: `${speed}×` }));

/** Play/pause, the timeline with the time, speed and skip idle (off: real time). */
export function PlayerControlsBar({ state, controls, marks, skipIdle = true }: Props) {
  // Where the thumb is while the user drags it: shown instead of the playing time.
  const [dragMs, setDragMs] = useState<number>();
  const playing = state.status === 'playing';
  const shownMs = dragMs ?? state.timeMs;
  const seek = useCallback(
    (ms: number) => {
      setDragMs(undefined);
      controls.seek(ms);
    },
    [controls],
  );

  return (
    <Group gap="sm" wrap="nowrap" px="md" py="xs">
      <Button
        size="xs"
        w={40}
        px={0}
        aria-label={playing ? 'Pause' : 'Play'}
        onClick={playing ? controls.pause : controls.play}
      >
        <span aria-hidden>{playing ? '❚❚' : '▶'}</span>
      </Button>
      <Timeline
        shownMs={shownMs}
        durationMs={state.durationMs}
        marks={marks}
        onDrag={setDragMs}
        onSeek={seek}
      />
      <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }} data-testid="player-time">
        {formatDuration(shownMs)} / {formatDuration(state.durationMs)}
      </Text>
      <Loader size="xs" style={{ visibility: state.status === 'loading' ? 'visible' : 'hidden' }} />
      <NativeSelect
        size="xs"
        aria-label="Playback speed"
        data={speedOptions}
        value={String(state.speed)}
        onChange={(event) => controls.setSpeed(Number(event.currentTarget.value) as PlaybackSpeed)}
      />
      {skipIdle && (
        <Checkbox
          size="xs"
          label="Skip idle"
          checked={state.skipIdle}
          onChange={(event) => controls.setSkipIdle(event.currentTarget.checked)}
          style={{ whiteSpace: 'nowrap' }}
        />
      )}
    </Group>
  );
}
