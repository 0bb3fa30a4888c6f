import type { Ref } from 'react';
import { PlayerFrame } from '../PlayerFrame';
import type { PlaybackState } from '../playbackTypes';
import type { PlaybackControls } from '../useEngineState';

interface Props {
  title: string;
  sid: string;
  backHref: string;
  incomplete: boolean;
  /** The screen size the recording starts with (the canvas keeps what the recording says). */
  width: number;
  height: number;
  state: PlaybackState;
  controls: PlaybackControls;
  canvasRef: Ref<HTMLCanvasElement>;
}

/**
 * The full-page desktop player: the terminal player's header, notices and controls around a
 * canvas at the recording's screen size, scaled down (never up) to fit, its proportions kept.
 */
export function DesktopPlayerView({ width, height, canvasRef, ...frame }: Props) {
  return (
    <PlayerFrame
      {...frame}
      marks={[]}
      skipIdle={false}
      areaStyle={{ overflow: 'hidden', alignItems: 'center', justifyContent: 'center' }}
    >
      <canvas
        ref={canvasRef}
        width={width}
        height={height}
        role="img"
        aria-label="Recorded desktop"
        data-testid="player-desktop"
        style={{ display: 'block', maxWidth: '100%', maxHeight: '100%', background: '#000' }}
      />
    </PlayerFrame>
  );
}
