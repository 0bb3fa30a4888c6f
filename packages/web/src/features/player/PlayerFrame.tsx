import { Alert, Anchor, Box, Button, Group, Text, Title } from '@mantine/core';
import type { RecordingMark } from '@postern/contracts';
import type { CSSProperties, ReactNode } from 'react';
import { Link } from 'react-router';
import { formatDuration } from '../../lib/format';
import { PlayerControlsBar } from './PlayerControlsBar';
import type { PlaybackState } from './playbackTypes';
import type { PlaybackControls } from './useEngineState';
import { useFullscreen } from './useFullscreen';
import { usePlayerKeys } from './usePlayerKeys';

export interface PlayerFrameProps {
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
  /** Buttons beside Fullscreen. */
  actions?: ReactNode;
  /** Offer Skip idle (the terminal player shortens silences itself). */
  skipIdle?: boolean;
  /** How the area of the recording lays out what it shows. */
  areaStyle?: CSSProperties;
  /** The recording itself: a terminal, a desktop's canvas. */
  children: ReactNode;
}

/**
 * What every recording's player shows around the recording: the header with the way back and
 * fullscreen, the notices (incomplete, damaged, stopped), and the controls; keys as the
 * controls. The terminal and the desktop players put their screen in the middle.
 */
export function PlayerFrame(props: PlayerFrameProps) {
  const { state, controls } = props;
  usePlayerKeys(controls);
  const fullscreen = useFullscreen<HTMLDivElement>();

  return (
    <Box
      ref={fullscreen.ref}
      data-testid="player"
      // The page's own background, so the player in fullscreen keeps the theme.
      bg="var(--mantine-color-body)"
      style={{ display: 'flex', flexDirection: 'column', height: '100dvh' }}
    >
      <Group justify="space-between" wrap="nowrap" px="md" py="xs" style={borderBottom}>
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <Anchor component={Link} to={props.backHref} size="sm">
            ← Recordings
          </Anchor>
          <Title order={1} size="h4" style={{ overflowWrap: 'anywhere' }}>
            {props.title || 'Session recording'}
          </Title>
          <Text size="xs" c="dimmed" ff="monospace">
            {props.sid}
          </Text>
        </Group>
        <Group gap="xs" wrap="nowrap">
          {props.actions}
          <Button size="xs" variant="default" onClick={fullscreen.toggle}>
            {fullscreen.active ? 'Exit fullscreen' : 'Fullscreen'}
          </Button>
        </Group>
      </Group>
      {props.incomplete && (
        <Alert color="yellow" py="xs" radius={0} role="note">
          This recording is incomplete: the proxy stopped before the session ended.
        </Alert>
      )}
      {state.damagedAtMs !== undefined && (
        <Alert color="orange" py="xs" radius={0} role="note" data-testid="player-damaged">
          This recording is damaged after {formatDuration(state.damagedAtMs)}; it plays up to there.
        </Alert>
      )}
      {state.status === 'error' && (
        <Alert color="red" py="xs" radius={0} role="alert" title="Playback stopped">
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm">{state.error}</Text>
            <Button size="xs" variant="light" color="red" onClick={controls.play}>
              Retry
            </Button>
          </Group>
        </Alert>
      )}
      <Box style={{ ...recordingArea, ...props.areaStyle }}>{props.children}</Box>
      <Box style={{ borderTop: borderBottom.borderBottom }}>
        <PlayerControlsBar
          state={state}
          controls={controls}
          marks={props.marks}
          skipIdle={props.skipIdle ?? true}
        />
      </Box>
    </Box>
  );
}

const borderBottom = { borderBottom: '1px solid var(--mantine-color-default-border)' };
const recordingArea: CSSProperties = {
  flex: 1,
  minHeight: 0,
  overflow: 'auto',
  display: 'flex',
  padding: 8,
  background: '#1b1b22',
};
