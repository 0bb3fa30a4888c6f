import { Box, Button } from '@mantine/core';
import type { RecordingMark } from '@postern/contracts';
import type { Ref } from 'react';
import { PlayerFrame } from './PlayerFrame';
import type { PlaybackState } from './playbackTypes';
import type { PlaybackControls } from './useEngineState';

interface Props {
  title: string;
  sid: string;
  /** The recordings list. */
  backHref: string;
  /** The proxy stopped before the session ended. */
  incomplete: boolean;
  state: PlaybackState;
  controls: PlaybackControls;
  /** Joins and resizes, marked on the timeline. */
  marks: readonly RecordingMark[];
  /** Where the terminal is drawn (it keeps the recording's size; the area scrolls). */
  terminalRef: Ref<HTMLDivElement>;
  onDownload: () => void;
  downloading: boolean;
}

/** The full-page terminal player: header, the recorded terminal, the controls. */
export function PlayerView(props: Props) {
  const { terminalRef, onDownload, downloading, ...frame } = props;
  return (
    <PlayerFrame
      {...frame}
      actions={
        <Button size="xs" variant="light" loading={downloading} onClick={onDownload}>
          Download .cast
        </Button>
      }
    >
      {/* Centred when smaller than the area, scrolled when larger. */}
      <Box ref={terminalRef} style={{ margin: 'auto' }} data-testid="player-terminal" />
    </PlayerFrame>
  );
}
