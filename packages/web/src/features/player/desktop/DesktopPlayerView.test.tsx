import { fireEvent, screen } from '@testing-library/react';
import { createRef } from 'react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../../test/render';
import type { PlaybackState } from '../playbackTypes';
import type { PlaybackControls } from '../useEngineState';
import { DesktopPlayerView } from './DesktopPlayerView';

const playing: PlaybackState = {
  status: 'playing',
  timeMs: 75_000,
  durationMs: 600_000,
  speed: 1,
  skipIdle: false,
};

function renderView(state: Partial<PlaybackState> = {}, incomplete = false) {
  const controls: PlaybackControls = {
    play: vi.fn(),
    pause: vi.fn(),
    toggle: vi.fn(),
    seek: vi.fn(),
    seekBy: vi.fn(),
    setSpeed: vi.fn(),
    setSkipIdle: vi.fn(),
  };
  const canvasRef = createRef<HTMLCanvasElement>();
  renderWithTheme(
    <MemoryRouter>
      <DesktopPlayerView
        title="Desktop win-1"
        sid="sid-9"
        backHref="/web/cluster/one/recordings"
        incomplete={incomplete}
        width={1280}
        height={800}
        state={{ ...playing, ...state }}
        controls={controls}
        canvasRef={canvasRef}
      />
    </MemoryRouter>,
  );
  return { controls, canvasRef };
}

describe('DesktopPlayerView', () => {
  it('draws on a canvas of the recording size, scaled to fit, under the player controls', () => {
    const { controls, canvasRef } = renderView();
    expect(screen.getByRole('heading', { name: 'Desktop win-1' })).toBeTruthy();
    const canvas = screen.getByRole('img', { name: 'Recorded desktop' }) as HTMLCanvasElement;
    expect(canvasRef.current).toBe(canvas);
    expect([canvas.width, canvas.height]).toEqual([1280, 800]);
    expect(canvas.style.maxWidth).toBe('100%');
    expect(canvas.style.maxHeight).toBe('100%');
    expect(screen.getByTestId('player-time').textContent).toBe('01:15 / 10:00');
    // The terminal player's controls, less what a desktop has not: skip idle, the cast.
    expect(screen.queryByRole('checkbox', { name: 'Skip idle' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Download .cast' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Fullscreen' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(controls.pause).toHaveBeenCalled();
    fireEvent.change(screen.getByRole('combobox', { name: 'Playback speed' }), {
      target: { value: '4' },
    });
    expect(controls.setSpeed).toHaveBeenCalledWith(4);
    const slider = screen.getByRole('slider', { name: 'Playback position' });
    fireEvent.change(slider, { target: { value: '300000' } });
    expect(controls.seek).toHaveBeenCalledWith(300_000);
    fireEvent.keyDown(window, { key: 'ArrowRight' });
    expect(controls.seekBy).toHaveBeenCalledWith(5000);
  });

  it('says why playback stopped, offers a retry, and marks an incomplete recording', () => {
    const { controls } = renderView({ status: 'error', error: 'not authenticated' }, true);
    expect(screen.getByText(/incomplete: the proxy stopped/)).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('not authenticated');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(controls.play).toHaveBeenCalled();
  });
});
